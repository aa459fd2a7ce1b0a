/**
 * Node action records: `begin()` takes the single action lock (or returns null when another
 * action is running), `finish()` stores the outcome and frees it; `record()` stores a request
 * refused before it ran (400/409). Commands are stored, never passwords or output.
 */
import type { Queryable } from '@app/common'

export type ActionName = 'stop' | 'start' | 'restart' | 'start-reindex'

/** One step of a start or restart as it happened (see lifecycle/phases.ts). */
export interface ActionPhase {
  phase: 'stopping' | 'stopped' | 'starting' | 'warming_up' | 'running' | 'failed'
  at: string
  message?: string
}

export interface ActionOutcome {
  ok: boolean
  statusCode: number
  detail: string
  ssh?: { command: string; exit_code: number | null; duration_ms: number; attempts?: number }
}

export interface RunningAction {
  id: number
  startedAt: Date
}

export interface ActionRow {
  id: number
  action: ActionName
  username: string | null
  started_at: Date
  finished_at: Date | null
  ok: boolean | null
  status_code: number | null
  detail: string
  ssh_command: string | null
  ssh_exit_code: number | null
}

const clip = (text: string) => text.slice(0, 1000)

export function createActionsRepository(db: Queryable) {
  return {
    async begin(action: ActionName, username: string | null, leaseMs: number): Promise<RunningAction | null> {
      // A lock whose lease ran out belongs to an instance that died mid-action.
      await db.query(
        `UPDATE node_actions SET lock_key = NULL, finished_at = now(), ok = false,
           detail = 'abandoned: the instance running it stopped before it finished'
         WHERE lock_key IS NOT NULL AND expires_at < now()`,
      )
      const { rows } = await db.query<{ id: string; started_at: Date }>(
        `INSERT INTO node_actions (action, username, lock_key, expires_at)
         VALUES ($1, $2, 1, now() + $3::double precision * interval '1 millisecond')
         ON CONFLICT (lock_key) DO NOTHING RETURNING id, started_at`,
        [action, username, leaseMs],
      )
      return rows[0] ? { id: Number(rows[0].id), startedAt: new Date(rows[0].started_at) } : null
    },

    /** The action holding the lock, if any (for the 409 message and the live phases). */
    async running(): Promise<{ action: ActionName; started_at: Date; phases: ActionPhase[] } | null> {
      const { rows } = await db.query<{ action: ActionName; started_at: Date; phases: ActionPhase[] | null }>(
        'SELECT action, started_at, phases FROM node_actions WHERE lock_key IS NOT NULL',
      )
      return rows[0] ? { ...rows[0], phases: rows[0].phases ?? [] } : null
    },

    /** The phases so far of a running action (read by other requests polling the node state). */
    async setPhases(id: number, phases: ActionPhase[]): Promise<void> {
      await db.query('UPDATE node_actions SET phases = $2::jsonb WHERE id = $1', [id, JSON.stringify(phases)])
    },

    /** The last action that ran (not one refused before running), for telling a stopped node from an unreachable one. */
    async lastFinished(): Promise<{ action: ActionName; ok: boolean; finished_at: Date; phases: ActionPhase[] } | null> {
      const { rows } = await db.query<{ action: ActionName; ok: boolean; finished_at: Date; phases: ActionPhase[] | null }>(
        `SELECT action, ok, finished_at, phases FROM node_actions
         WHERE finished_at IS NOT NULL AND status_code NOT IN (400, 409) ORDER BY id DESC LIMIT 1`,
      )
      const row = rows[0]
      return row ? { ...row, finished_at: new Date(row.finished_at), phases: row.phases ?? [] } : null
    },

    async finish(id: number, outcome: ActionOutcome): Promise<Date> {
      const { rows } = await db.query<{ finished_at: Date }>(
        `UPDATE node_actions SET lock_key = NULL, expires_at = NULL, finished_at = now(), ok = $2, status_code = $3,
           detail = $4, ssh_command = $5, ssh_exit_code = $6, ssh_duration_ms = $7, ssh_attempts = $8
         WHERE id = $1 RETURNING finished_at`,
        [
          id,
          outcome.ok,
          outcome.statusCode,
          clip(outcome.detail),
          outcome.ssh?.command ?? null,
          outcome.ssh?.exit_code ?? null,
          outcome.ssh?.duration_ms ?? null,
          outcome.ssh?.attempts ?? null,
        ],
      )
      return new Date(rows[0]?.finished_at ?? Date.now())
    },

    async record(action: ActionName, username: string | null, outcome: ActionOutcome): Promise<void> {
      await db.query(
        `INSERT INTO node_actions (action, username, finished_at, ok, status_code, detail)
         VALUES ($1, $2, now(), $3, $4, $5)`,
        [action, username, outcome.ok, outcome.statusCode, clip(outcome.detail)],
      )
    },

    async recent(limit = 50): Promise<ActionRow[]> {
      const { rows } = await db.query<ActionRow>(
        `SELECT id, action, username, started_at, finished_at, ok, status_code, detail, ssh_command, ssh_exit_code
         FROM node_actions ORDER BY id DESC LIMIT $1`,
        [limit],
      )
      return rows.map((r) => ({ ...r, id: Number(r.id) }))
    },
  }
}

export type ActionsRepository = ReturnType<typeof createActionsRepository>

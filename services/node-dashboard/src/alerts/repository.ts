/**
 * Alert rules, webhook targets, deliveries and the node state the rules read. Bound to the database
 * or to a transaction (`createAlertsRepository(tx)`): the use cases in service.ts own the transactions.
 * Target URLs go in and out encrypted; decrypting is the service's job.
 */
import type { Queryable } from '@app/common'
import type { Notification, NotificationEvent, TargetFormat } from './formats.ts'
import type { NodeState, RuleKind } from './rules.ts'

export interface RuleRow {
  id: number
  kind: RuleKind
  threshold: number | null
  enabled: boolean
  firing: boolean
  detail: string
  changed_at: Date | null
  created_at: Date
}

export interface TargetRow {
  id: number
  name: string
  format: TargetFormat
  url_enc: string
  url_hint: string
  enabled: boolean
  created_at: Date
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'dropped'

export interface DeliveryRow {
  id: number
  target_id: number
  target_name: string | null
  rule_id: number | null
  event: NotificationEvent
  notification: Notification
  state: DeliveryState
  attempts: number
  next_attempt_at: Date
  last_status: number | null
  last_error: string | null
  created_at: Date
  finished_at: Date | null
}

const RULE_COLUMNS = 'id, kind, threshold, enabled, firing, detail, changed_at, created_at'
const TARGET_COLUMNS = 'id, name, format, url_enc, url_hint, enabled, created_at'
const DELIVERY_COLUMNS = `d.id, d.target_id, t.name AS target_name, d.rule_id, d.event, d.notification, d.state, d.attempts,
  d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.finished_at`

const withId = <T extends { id: unknown }>(row: T) => ({ ...row, id: Number(row.id) })
const delivery = (row: DeliveryRow): DeliveryRow => ({
  ...row,
  id: Number(row.id),
  target_id: Number(row.target_id),
  rule_id: row.rule_id === null ? null : Number(row.rule_id),
  notification: typeof row.notification === 'string' ? JSON.parse(row.notification) : row.notification,
})

export function createAlertsRepository(db: Queryable) {
  return {
    async rules(): Promise<RuleRow[]> {
      const { rows } = await db.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM alert_rules ORDER BY id`)
      return rows.map(withId)
    },
    async rule(id: number, forUpdate = false): Promise<RuleRow | null> {
      const { rows } = await db.query<RuleRow>(
        `SELECT ${RULE_COLUMNS} FROM alert_rules WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
        [id],
      )
      return rows[0] ? withId(rows[0]) : null
    },
    async countRules(): Promise<number> {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rules')
      return rows[0].n
    },
    async insertRule(kind: RuleKind, threshold: number | null, enabled: boolean): Promise<RuleRow> {
      const { rows } = await db.query<RuleRow>(
        `INSERT INTO alert_rules (kind, threshold, enabled) VALUES ($1, $2, $3) RETURNING ${RULE_COLUMNS}`,
        [kind, threshold, enabled],
      )
      return withId(rows[0])
    },
    async updateRule(id: number, threshold: number | null, enabled: boolean): Promise<RuleRow | null> {
      // A disabled rule forgets its state: enabled again, it starts from "not firing".
      const { rows } = await db.query<RuleRow>(
        `UPDATE alert_rules SET threshold = $2, enabled = $3, updated_at = now(),
           firing = CASE WHEN $3 THEN firing ELSE false END,
           detail = CASE WHEN $3 THEN detail ELSE '' END
         WHERE id = $1 RETURNING ${RULE_COLUMNS}`,
        [id, threshold, enabled],
      )
      return rows[0] ? withId(rows[0]) : null
    },
    async deleteRule(id: number): Promise<boolean> {
      return (await db.query('DELETE FROM alert_rules WHERE id = $1', [id])).rowCount > 0
    },
    async setRuleState(id: number, firing: boolean, detail: string, at: Date): Promise<void> {
      await db.query('UPDATE alert_rules SET firing = $2, detail = $3, changed_at = $4 WHERE id = $1', [id, firing, detail, at])
    },

    async targets(): Promise<TargetRow[]> {
      const { rows } = await db.query<TargetRow>(`SELECT ${TARGET_COLUMNS} FROM alert_targets ORDER BY id`)
      return rows.map(withId)
    },
    async target(id: number): Promise<TargetRow | null> {
      const { rows } = await db.query<TargetRow>(`SELECT ${TARGET_COLUMNS} FROM alert_targets WHERE id = $1`, [id])
      return rows[0] ? withId(rows[0]) : null
    },
    async countTargets(): Promise<number> {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_targets')
      return rows[0].n
    },
    async insertTarget(t: Pick<TargetRow, 'name' | 'format' | 'url_enc' | 'url_hint' | 'enabled'>): Promise<TargetRow> {
      const { rows } = await db.query<TargetRow>(
        `INSERT INTO alert_targets (name, format, url_enc, url_hint, enabled) VALUES ($1, $2, $3, $4, $5) RETURNING ${TARGET_COLUMNS}`,
        [t.name, t.format, t.url_enc, t.url_hint, t.enabled],
      )
      return withId(rows[0])
    },
    async updateTarget(id: number, t: Pick<TargetRow, 'name' | 'format' | 'url_enc' | 'url_hint' | 'enabled'>) {
      const { rows } = await db.query<TargetRow>(
        `UPDATE alert_targets SET name = $2, format = $3, url_enc = $4, url_hint = $5, enabled = $6, updated_at = now()
         WHERE id = $1 RETURNING ${TARGET_COLUMNS}`,
        [id, t.name, t.format, t.url_enc, t.url_hint, t.enabled],
      )
      return rows[0] ? withId(rows[0]) : null
    },
    async deleteTarget(id: number): Promise<boolean> {
      return (await db.query('DELETE FROM alert_targets WHERE id = $1', [id])).rowCount > 0
    },

    /** The node state row, locked until the transaction ends: one evaluation at a time. */
    async lockNodeState(): Promise<NodeState> {
      await db.query('INSERT INTO alert_node_state (id) VALUES (1) ON CONFLICT DO NOTHING')
      const { rows } = await db.query<{
        last_round_at: Date | null
        unreachable_since: Date | null
        tip_height: string | number | null
        tip_since: Date | null
      }>('SELECT last_round_at, unreachable_since, tip_height, tip_since FROM alert_node_state WHERE id = 1 FOR UPDATE')
      const row = rows[0]
      return {
        lastRoundAt: row.last_round_at && new Date(row.last_round_at),
        unreachableSince: row.unreachable_since && new Date(row.unreachable_since),
        tipHeight: row.tip_height === null ? null : Number(row.tip_height),
        tipSince: row.tip_since && new Date(row.tip_since),
      }
    },
    async saveNodeState(s: NodeState): Promise<void> {
      await db.query(
        'UPDATE alert_node_state SET last_round_at = $1, unreachable_since = $2, tip_height = $3, tip_since = $4 WHERE id = 1',
        [s.lastRoundAt, s.unreachableSince, s.tipHeight, s.tipSince],
      )
    },

    async pendingCount(): Promise<number> {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM alert_deliveries WHERE state = 'pending'")
      return rows[0].n
    },
    async insertDelivery(
      targetId: number,
      n: Notification,
      state: DeliveryState = 'pending',
      lastError: string | null = null,
    ): Promise<number> {
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO alert_deliveries (target_id, rule_id, event, notification, state, last_error, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $5 = 'pending' THEN NULL ELSE now() END) RETURNING id`,
        [targetId, n.rule?.id ?? null, n.event, JSON.stringify(n), state, lastError],
      )
      return Number(rows[0].id)
    },
    /** Claims due pending deliveries for `seconds` (another instance's dispatcher skips them). */
    async claimDue(limit: number, seconds: number): Promise<DeliveryRow[]> {
      const { rows } = await db.query<DeliveryRow>(
        `WITH due AS (
           SELECT id FROM alert_deliveries
           WHERE state = 'pending' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
           ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED
         ), claimed AS (
           UPDATE alert_deliveries SET claimed_until = now() + make_interval(secs => $2)
           FROM due WHERE alert_deliveries.id = due.id RETURNING alert_deliveries.*
         )
         SELECT ${DELIVERY_COLUMNS} FROM claimed d LEFT JOIN alert_targets t ON t.id = d.target_id`,
        [limit, seconds],
      )
      return rows.map(delivery)
    },
    /** Stores an attempt's outcome: delivered/failed end it; pending with a delay schedules the next. */
    async recordAttempt(
      id: number,
      outcome: { state: DeliveryState; status: number | null; error: string | null; retryInMs?: number },
    ): Promise<void> {
      await db.query(
        `UPDATE alert_deliveries SET attempts = attempts + 1, state = $2, last_status = $3, last_error = $4, claimed_until = NULL,
           next_attempt_at = now() + make_interval(secs => $5::double precision / 1000),
           finished_at = CASE WHEN $2 = 'pending' THEN NULL ELSE now() END
         WHERE id = $1`,
        [id, outcome.state, outcome.status, outcome.error, outcome.retryInMs ?? 0],
      )
    },
    async recentDeliveries(limit: number): Promise<DeliveryRow[]> {
      const { rows } = await db.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d LEFT JOIN alert_targets t ON t.id = d.target_id
         ORDER BY d.id DESC LIMIT $1`,
        [limit],
      )
      return rows.map(delivery)
    },
    /** Keeps the newest `keep` finished deliveries. */
    async pruneDeliveries(keep: number): Promise<void> {
      await db.query(
        `DELETE FROM alert_deliveries WHERE state <> 'pending'
           AND id < (SELECT id FROM alert_deliveries ORDER BY id DESC OFFSET $1 LIMIT 1)`,
        [keep],
      )
    },
  }
}

export type AlertsRepository = ReturnType<typeof createAlertsRepository>

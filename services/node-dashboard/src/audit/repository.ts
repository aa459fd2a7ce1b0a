/**
 * Audit trail of RPC explorer calls, node actions and alert changes and deliveries. For other route authors:
 *   `await fastify.audit.record({ username, kind: 'action', name: 'restart', ok: true, outcome: 'exit 0' })`
 * Record who, what and the outcome only: never params, commands with secrets, or passwords.
 */
import type { Queryable } from '@app/common'

export interface AuditEntry {
  username: string | null
  kind: 'rpc' | 'action' | 'alert'
  /** The RPC method, the action name, or the alert change or delivery. */
  name: string
  ok: boolean
  /** Short result text (an error detail, "ok"); clipped to 500 characters. */
  outcome: string
}

export interface AuditRow extends AuditEntry {
  id: number
  created_at: string
}

export function createAuditRepository(db: Queryable) {
  return {
    async record(entry: AuditEntry): Promise<void> {
      await db.query('INSERT INTO audit_log (username, kind, name, ok, outcome) VALUES ($1, $2, $3, $4, $5)', [
        entry.username,
        entry.kind,
        entry.name.slice(0, 200),
        entry.ok,
        entry.outcome.slice(0, 500),
      ])
    },
    async recent(limit = 100): Promise<AuditRow[]> {
      const { rows } = await db.query<AuditRow>(
        'SELECT id, created_at, username, kind, name, ok, outcome FROM audit_log ORDER BY id DESC LIMIT $1',
        [limit],
      )
      return rows
    },
  }
}

export type AuditRepository = ReturnType<typeof createAuditRepository>

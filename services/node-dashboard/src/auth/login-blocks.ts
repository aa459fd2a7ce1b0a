import { createHash } from 'node:crypto'
import type { Queryable } from '@app/common'

// Every real address fits (IPv6 with a zone is under 64); a longer one came from a client's X-Forwarded-For and
// is stored as its hash, since a long key cannot be indexed.
const MAX_PLAIN_KEY = 64
const blockKey = (ip: string) =>
  ip.length <= MAX_PLAIN_KEY ? ip : `sha256:${createHash('sha256').update(ip).digest('base64url')}`

/** IPs that spent their failed-login budget, kept in the database so every instance refuses them. */
export function createLoginBlockRepository(db: Queryable) {
  return {
    /** Seconds until the IP may try again, or 0 when it is not blocked. */
    async secondsLeft(ip: string): Promise<number> {
      const { rows } = await db.query<{ seconds: number }>(
        'SELECT EXTRACT(EPOCH FROM blocked_until - now())::float8 AS seconds FROM login_blocks WHERE ip = $1 AND blocked_until > now()',
        [blockKey(ip)],
      )
      return rows[0] ? Math.max(1, Math.ceil(rows[0].seconds)) : 0
    },
    async block(ip: string, until: Date): Promise<void> {
      await db.query('DELETE FROM login_blocks WHERE blocked_until <= now()')
      await db.query(
        `INSERT INTO login_blocks (ip, blocked_until) VALUES ($1, $2)
         ON CONFLICT (ip) DO UPDATE SET blocked_until = GREATEST(login_blocks.blocked_until, EXCLUDED.blocked_until)`,
        [blockKey(ip), until.toISOString()],
      )
    },
  }
}

export type LoginBlockRepository = ReturnType<typeof createLoginBlockRepository>

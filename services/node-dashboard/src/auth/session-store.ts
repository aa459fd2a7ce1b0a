import type { Queryable } from '@app/common'
import type { SessionStore } from '@fastify/session'
import type { Session } from 'fastify'

type Callback = (error?: unknown) => void
type SessionData = Record<string, unknown> & { cookie?: { expires?: string | Date | null } }

// Sessions without an expiry (never issued by this app) still get one so rows cannot live forever.
const FALLBACK_TTL_MS = 8 * 3600 * 1000

/** Login sessions in PostgreSQL: they survive restarts and are shared by instances. */
export function createSessionRepository(db: Queryable) {
  /** The @fastify/session store. */
  const store: SessionStore = {
    set(sid: string, session: Session, callback: Callback) {
      const data = JSON.parse(JSON.stringify(session)) as SessionData
      const expires = data.cookie?.expires ? new Date(data.cookie.expires) : new Date(Date.now() + FALLBACK_TTL_MS)
      db.query(
        `INSERT INTO sessions (sid, data, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (sid) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
        [sid, JSON.stringify(data), expires.toISOString()],
      ).then(() => callback(), callback)
    },
    get(sid: string, callback: (error: unknown, session?: Session | null) => void) {
      db.query<{ data: SessionData | string }>('SELECT data FROM sessions WHERE sid = $1 AND expires_at > now()', [sid]).then(
        ({ rows }) => {
          const data = rows[0]?.data
          callback(null, data === undefined ? null : typeof data === 'string' ? JSON.parse(data) : data)
        },
        (error) => callback(error),
      )
    },
    destroy(sid: string, callback: Callback) {
      db.query('DELETE FROM sessions WHERE sid = $1', [sid]).then(() => callback(), callback)
    },
  }
  return {
    store,
    /** Deletes expired sessions; returns how many. */
    async prune(): Promise<number> {
      const { rowCount } = await db.query('DELETE FROM sessions WHERE expires_at <= now()')
      return rowCount
    },
  }
}

import type { Queryable } from '@app/common'
import type { MemeRow } from '../memes/repository.ts'

/** Quota limits in force (from the config). */
export interface QuotaLimits {
  hour: number
  day: number
  globalDay: number
}

/** Uploads counted in the rolling windows ending now (database clock). */
export interface QuotaUsage {
  hour: number
  day: number
  globalDay: number
}

export type QuotaWindow = keyof QuotaUsage

export interface ExistingMeme {
  row: MemeRow
  deleted: boolean
}

// One lock for every quota check-and-insert, so concurrent uploads (any instance) cannot both take the last slot.
const QUOTA_LOCK_KEY = 4_400_711

const WINDOWS: Record<QuotaWindow, { interval: string; perIp: boolean }> = {
  hour: { interval: '1 hour', perIp: true },
  day: { interval: '1 day', perIp: true },
  globalDay: { interval: '1 day', perIp: false },
}

/** SQL of the upload pipeline; takes the database or an open transaction. */
export function createUploadsRepository(db: Queryable) {
  return {
    /** The meme stored under this id in any state (deleted included), with its tags. */
    async findMeme(id: string): Promise<ExistingMeme | null> {
      const { rows } = await db.query<MemeRow & { deleted: boolean }>(
        `SELECT m.id, m.created_at, m.status, m.byte_size, m.width, m.height, m.mime, m.original_mime, m.original_name,
           m.moderation_score, m.moderation_reason, m.view_count, m.download_count, m.demo, m.caption,
           coalesce((SELECT array_agg(t.tag ORDER BY t.tag) FROM meme_tags t WHERE t.meme_id = m.id), '{}') AS tags,
           m.deleted_at IS NOT NULL AS deleted
         FROM memes m WHERE m.id = $1`,
        [id],
      )
      const row = rows[0]
      return row ? { row, deleted: row.deleted } : null
    },

    async findRejectedHash(sha256: string): Promise<{ moderationScore: number; moderationReason: string } | null> {
      const { rows } = await db.query<{ moderation_score: number; moderation_reason: string }>(
        'SELECT moderation_score, moderation_reason FROM rejected_hashes WHERE sha256 = $1',
        [sha256],
      )
      const row = rows[0]
      return row ? { moderationScore: Number(row.moderation_score), moderationReason: row.moderation_reason } : null
    },

    async quotaUsage(ip: string): Promise<QuotaUsage> {
      const { rows } = await db.query<{ hour: number; day: number; global_day: number }>(
        `SELECT count(*) FILTER (WHERE ip = $1 AND created_at > now() - interval '1 hour')::int AS hour,
                count(*) FILTER (WHERE ip = $1)::int AS day,
                count(*)::int AS global_day
         FROM upload_events WHERE created_at > now() - interval '1 day'`,
        [ip],
      )
      const row = rows[0]
      return { hour: Number(row?.hour ?? 0), day: Number(row?.day ?? 0), globalDay: Number(row?.global_day ?? 0) }
    },

    /** Seconds until enough events leave `window` for one more upload to fit under `limit`. */
    async secondsUntilSlot(ip: string, window: QuotaWindow, limit: number, used: number): Promise<number> {
      const { interval, perIp } = WINDOWS[window]
      const { rows } = await db.query<{ seconds: number }>(
        `SELECT ceil(extract(epoch FROM (created_at + $1::interval - now())))::int AS seconds
         FROM upload_events
         WHERE created_at > now() - $1::interval AND ($2::boolean IS FALSE OR ip = $3)
         ORDER BY created_at OFFSET $4 LIMIT 1`,
        [interval, perIp, ip, Math.max(0, used - limit)],
      )
      return Math.max(1, Number(rows[0]?.seconds ?? 1))
    },

    /** Serializes quota check-and-consume until the transaction ends (call inside a transaction). */
    async lockQuota(): Promise<void> {
      await db.query('SELECT pg_advisory_xact_lock($1)', [QUOTA_LOCK_KEY])
    },

    async recordUploadEvent(ip: string): Promise<void> {
      await db.query('INSERT INTO upload_events (ip) VALUES ($1)', [ip])
    },

    /** Ids of live memes whose dHash is within `maxDistance` bits of `phash`, oldest first. */
    async findNearDuplicates(phash: string, maxDistance: number, limit = 10): Promise<string[]> {
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM memes
         WHERE phash IS NOT NULL AND deleted_at IS NULL
           AND bit_count(('x' || phash)::bit(64) # ('x' || $1)::bit(64)) <= $2
         ORDER BY created_at, id LIMIT $3`,
        [phash, maxDistance, limit],
      )
      return rows.map((r) => r.id)
    },
  }
}

export type UploadsRepository = ReturnType<typeof createUploadsRepository>

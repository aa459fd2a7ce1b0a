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

export interface NewMeme {
  id: string
  status: 'approved' | 'pending'
  byteSize: number
  width: number
  height: number
  originalMime: 'image/png' | 'image/jpeg'
  originalName: string
  moderationScore: number
  moderationReason: string
  phash: string
  nearDuplicateOf: string[]
  uploaderIp: string
  webp: Buffer
}

const RETURNING = `id, created_at, status, byte_size, width, height, mime, original_mime, original_name, moderation_score,
  moderation_reason, view_count, download_count, demo, caption, '{}'::text[] AS tags`

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

    /** Inserts the meme unless the id exists (a concurrent identical upload); null then. */
    async insertMeme(meme: NewMeme): Promise<MemeRow | null> {
      const { rows } = await db.query<MemeRow>(
        `INSERT INTO memes (id, status, byte_size, width, height, original_mime, original_name, moderation_score,
           moderation_reason, phash, near_duplicate_of, uploader_ip)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text[], $12)
         ON CONFLICT (id) DO NOTHING
         RETURNING ${RETURNING}`,
        [
          meme.id,
          meme.status,
          meme.byteSize,
          meme.width,
          meme.height,
          meme.originalMime,
          meme.originalName,
          meme.moderationScore,
          meme.moderationReason,
          meme.phash,
          meme.nearDuplicateOf,
          meme.uploaderIp,
        ],
      )
      return rows[0] ?? null
    },

    async insertMedia(memeId: string, webp: Buffer): Promise<void> {
      await db.query('INSERT INTO meme_media (meme_id, bytes) VALUES ($1, $2)', [memeId, webp])
    },

    async enqueueCaptionJob(memeId: string): Promise<void> {
      await db.query('INSERT INTO caption_jobs (meme_id) VALUES ($1)', [memeId])
    },

    async rememberRejected(sha256: string, moderationScore: number, moderationReason: string): Promise<void> {
      await db.query(
        `INSERT INTO rejected_hashes (sha256, moderation_score, moderation_reason) VALUES ($1, $2, $3)
         ON CONFLICT (sha256) DO NOTHING`,
        [sha256, moderationScore, moderationReason],
      )
    },
  }
}

export type UploadsRepository = ReturnType<typeof createUploadsRepository>

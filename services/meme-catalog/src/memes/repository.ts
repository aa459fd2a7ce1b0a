import type { Queryable } from '@app/common'
import type { MemeT } from './schemas.ts'

/** A public meme plus what the read model needs beside the wire record. */
export interface MemeRow {
  id: string
  created_at: Date | string
  status: string
  byte_size: number
  width: number
  height: number
  mime: string
  original_mime: string
  original_name: string
  moderation_score: number
  moderation_reason: string
  view_count: number
  download_count: number
  demo: boolean
  caption: string
  tags: string[] | null
}

const BASE_COLUMNS = `m.id, m.created_at, m.status, m.byte_size, m.width, m.height, m.mime, m.original_mime, m.original_name,
  m.moderation_score, m.moderation_reason, m.view_count, m.download_count, m.demo, m.caption`
const COLUMNS = `${BASE_COLUMNS},
  coalesce((SELECT array_agg(t.tag ORDER BY t.tag) FROM meme_tags t WHERE t.meme_id = m.id), '{}') AS tags`

/** Only approved, not deleted memes are public. */
const PUBLIC = `m.status = 'approved' AND m.deleted_at IS NULL`

export function toMeme(row: MemeRow): MemeT {
  const createdAt = row.created_at instanceof Date ? row.created_at : new Date(row.created_at)
  return {
    id: row.id,
    createdAt: createdAt.toISOString(),
    byteSize: Number(row.byte_size),
    width: Number(row.width),
    height: Number(row.height),
    mime: 'image/webp',
    originalMime: row.original_mime as MemeT['originalMime'],
    status: row.status as MemeT['status'],
    moderationScore: Number(row.moderation_score),
    moderationReason: row.moderation_reason,
    viewCount: Number(row.view_count),
    downloadCount: Number(row.download_count),
    originalName: row.original_name,
    url: `/media/${row.id}`,
    downloadUrl: `/media/${row.id}?download=1`,
    demo: row.demo,
    caption: row.caption,
    tags: row.tags ?? [],
  }
}

/**
 * A public meme as the read model keeps it: the wire record without what derives from the id (urls) or is the
 * same for every public meme (mime, status), with createdAt in epoch milliseconds.
 */
export interface PublicMemeRecord {
  id: string
  createdAt: number
  byteSize: number
  width: number
  height: number
  originalMime: MemeT['originalMime']
  moderationScore: number
  moderationReason: string
  viewCount: number
  downloadCount: number
  originalName: string
  demo: boolean
  caption: string
  tags: string[]
}

interface RecordRow extends Omit<MemeRow, 'created_at' | 'status' | 'mime'> {
  created_ms: number
}

// The batch columns: no status or mime (the same for every public meme); created_at as whole epoch
// milliseconds, as a Date would hold it, so no Date is parsed or formatted per row.
const RECORD_COLUMNS = `m.id, floor(extract(epoch FROM m.created_at) * 1000)::float8 AS created_ms, m.byte_size, m.width, m.height,
  m.original_mime, m.original_name, m.moderation_score, m.moderation_reason, m.view_count, m.download_count, m.demo, m.caption`

function toRecord(row: RecordRow): PublicMemeRecord {
  return {
    id: row.id,
    createdAt: Number(row.created_ms),
    byteSize: Number(row.byte_size),
    width: Number(row.width),
    height: Number(row.height),
    originalMime: row.original_mime as MemeT['originalMime'],
    moderationScore: Number(row.moderation_score),
    moderationReason: row.moderation_reason,
    viewCount: Number(row.view_count),
    downloadCount: Number(row.download_count),
    originalName: row.original_name,
    demo: row.demo,
    caption: row.caption,
    tags: row.tags ?? [],
  }
}

export interface PublicListQuery {
  tags: string[]
  offset: number
  limit: number
}

export interface CounterDelta {
  id: string
  views: number
  downloads: number
}

/** SQL of the public read side; takes the database or an open transaction. */
export function createMemesRepository(db: Queryable) {
  return {
    /** The meme if it is public (approved, not deleted), else null. */
    async findPublic(id: string): Promise<MemeT | null> {
      const { rows } = await db.query<MemeRow>(`SELECT ${COLUMNS} FROM memes m WHERE m.id = $1 AND ${PUBLIC}`, [id])
      return rows[0] ? toMeme(rows[0]) : null
    },

    /**
     * Every public meme with its tags, `batchSize` at a time in id order (keyset, so each batch is an index range
     * and no server-side state spans batches): the read model is built while it streams, never holding all rows.
     */
    async *publicBatches(batchSize: number): AsyncGenerator<PublicMemeRecord[]> {
      let after = ''
      for (;;) {
        // The batch's tags come from the same id range of meme_tags' primary key: one range scan, no per-meme lookup.
        const { rows } = await db.query<RecordRow>(
          `WITH batch AS (SELECT ${RECORD_COLUMNS} FROM memes m WHERE ${PUBLIC} AND m.id > $1 ORDER BY m.id LIMIT $2)
           SELECT b.*, coalesce(t.tags, '{}') AS tags
           FROM batch b
           LEFT JOIN (SELECT meme_id, array_agg(tag ORDER BY tag) AS tags FROM meme_tags
                      WHERE meme_id > $1 AND meme_id <= (SELECT max(id) FROM batch) GROUP BY meme_id) t ON t.meme_id = b.id
           ORDER BY b.id`,
          [after, batchSize],
        )
        if (rows.length > 0) yield rows.map(toRecord)
        if (rows.length < batchSize) return
        after = rows[rows.length - 1].id
      }
    },

    /** Newest first, all tags required: the database answer used while the read model is loading. */
    async listPublic({ tags, offset, limit }: PublicListQuery): Promise<{ total: number; memes: MemeT[] }> {
      const tagFilter = `(SELECT count(*) FROM meme_tags t WHERE t.meme_id = m.id AND t.tag = ANY($1::text[])) = cardinality($1::text[])`
      const where = `${PUBLIC} AND ${tagFilter}`
      const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memes m WHERE ${where}`, [tags])
      const { rows } = await db.query<MemeRow>(
        `SELECT ${COLUMNS} FROM memes m WHERE ${where} ORDER BY m.created_at DESC, m.id DESC OFFSET $2 LIMIT $3`,
        [tags, offset, limit],
      )
      return { total: Number(count.rows[0]?.n ?? 0), memes: rows.map(toMeme) }
    },

    async countAll(): Promise<number> {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM memes')
      return Number(rows[0]?.n ?? 0)
    },

    /** The WebP bytes of a public meme, or null. */
    async findPublicMedia(id: string): Promise<Buffer | null> {
      const { rows } = await db.query<{ bytes: Uint8Array }>(
        `SELECT mm.bytes FROM meme_media mm JOIN memes m ON m.id = mm.meme_id WHERE mm.meme_id = $1 AND ${PUBLIC}`,
        [id],
      )
      const bytes = rows[0]?.bytes
      return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null
    },

    /** Adds batched view/download counts in one statement; returns the new totals. */
    async addCounts(deltas: CounterDelta[]): Promise<{ id: string; view_count: number; download_count: number }[]> {
      if (deltas.length === 0) return []
      const { rows } = await db.query<{ id: string; view_count: number; download_count: number }>(
        `UPDATE memes m SET view_count = m.view_count + d.views, download_count = m.download_count + d.downloads
         FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS d(id, views, downloads)
         WHERE m.id = d.id
         RETURNING m.id, m.view_count, m.download_count`,
        [deltas.map((d) => d.id), deltas.map((d) => d.views), deltas.map((d) => d.downloads)],
      )
      return rows.map((r) => ({ id: r.id, view_count: Number(r.view_count), download_count: Number(r.download_count) }))
    },

    async findCounts(ids: string[]): Promise<{ id: string; view_count: number; download_count: number }[]> {
      const { rows } = await db.query<{ id: string; view_count: number; download_count: number }>(
        'SELECT id, view_count, download_count FROM memes WHERE id = ANY($1::text[])',
        [ids],
      )
      return rows.map((r) => ({ id: r.id, view_count: Number(r.view_count), download_count: Number(r.download_count) }))
    },
  }
}

export type MemesRepository = ReturnType<typeof createMemesRepository>

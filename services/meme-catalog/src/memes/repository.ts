import { CopyTextReader, type Queryable } from '@app/common'
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
  /** The perceptual hash; read for the read model's similar-image index, never part of the wire record. */
  phash?: string | null
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
  /**
   * The perceptual hash as read (16 hex digits, or null): the read model moves it into its similar-image index
   * and clears it here, so no string per meme stays behind.
   */
  phash?: string | null
}

/** A public meme as the database gives it to the read model: the wire record and its perceptual hash. */
export type PublicMeme = MemeT & { phash: string | null }

// The batch columns, read from COPY's text output in this order: no status or mime (the same for every public
// meme); created_at as whole epoch milliseconds, as a Date would hold it, so no Date is parsed or formatted per row.
const RECORD_COLUMNS = `m.id, floor(extract(epoch FROM m.created_at) * 1000)::int8, m.byte_size, m.width, m.height,
  m.original_mime, m.original_name, m.moderation_score, m.moderation_reason, m.view_count, m.download_count, m.demo, m.caption, m.phash`
const HEX_ID = /^[0-9a-f]{64}$/

/** The record of the reader's current row (columns as RECORD_COLUMNS, then the tags). */
function readRecord(row: CopyTextReader): PublicMemeRecord {
  return {
    id: row.text(0) as string,
    createdAt: row.integer(1),
    byteSize: row.integer(2),
    width: row.integer(3),
    height: row.integer(4),
    originalMime: row.text(5) as MemeT['originalMime'],
    originalName: row.text(6) as string,
    moderationScore: row.integer(7),
    moderationReason: row.text(8) as string,
    viewCount: row.integer(9),
    downloadCount: row.integer(10),
    demo: row.boolean(11),
    caption: row.text(12) as string,
    tags: row.textArray(14) ?? [],
    phash: row.text(13),
  }
}

/**
 * Public memes with their tags in id order through COPY, from after `after` (every one when empty), at most
 * `limit`. COPY takes no parameters: the key is inlined, and only ever a meme id (64 hex digits, as the table's
 * CHECK requires), refused otherwise. Both sides of the merge join are index scans in id order: rows stream out
 * as they are joined, with no sort or hash table in between.
 */
function publicRecordsQuery(after: string, limit: number): string {
  if (after !== '' && !HEX_ID.test(after)) throw new Error('a meme id is 64 hex digits')
  const from = after === '' ? '' : `AND m.id > '${after}'`
  return `SELECT ${RECORD_COLUMNS}, coalesce(t.tags, '{}')
    FROM memes m
    LEFT JOIN (SELECT meme_id, array_agg(tag ORDER BY tag) AS tags FROM meme_tags
               ${after === '' ? '' : `WHERE meme_id > '${after}'`} GROUP BY meme_id) t ON t.meme_id = m.id
    WHERE ${PUBLIC} ${from}
    ORDER BY m.id${Number.isFinite(limit) ? ` LIMIT ${Math.trunc(limit)}` : ''}`
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
    async findPublic(id: string): Promise<PublicMeme | null> {
      const { rows } = await db.query<MemeRow>(`SELECT ${COLUMNS}, m.phash FROM memes m WHERE m.id = $1 AND ${PUBLIC}`, [id])
      return rows[0] ? { ...toMeme(rows[0]), phash: rows[0].phash ?? null } : null
    },

    /**
     * Every public meme with its tags, `batchSize` at a time in id order, streamed through COPY and read from its
     * text output (no row object per meme): the read model is built while it streams, never holding all rows.
     * One COPY reads `segment` memes at most (keyset, from the last id read): the embedded database returns a COPY's
     * output whole, so it needs a bound; PostgreSQL streams with back-pressure and can take them all at once.
     */
    async *publicBatches(batchSize: number, segment = Number.POSITIVE_INFINITY): AsyncGenerator<PublicMemeRecord[]> {
      let after = ''
      let last = ''
      let batch: PublicMemeRecord[] = []
      for (;;) {
        const reader = new CopyTextReader()
        let read = 0
        for await (const chunk of db.copyTo(publicRecordsQuery(after, segment))) {
          reader.push(chunk)
          while (reader.next()) {
            const record = readRecord(reader)
            batch.push(record)
            last = record.id
            read++
            if (batch.length === batchSize) {
              yield batch
              batch = []
            }
          }
        }
        reader.end()
        if (read < segment) break
        after = last
      }
      if (batch.length > 0) yield batch
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

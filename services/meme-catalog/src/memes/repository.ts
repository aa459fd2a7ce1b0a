import { CopyTextReader, type Queryable } from '@app/common'
import type { MemeT } from './schemas.ts'
import { addScoresSql, eventScore, NO_TRENDING_SCORE } from './trending.ts'

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
  /** The trending score (null: never viewed); read for the read model, never part of the wire record. */
  trending?: number | null
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
  /** The trending score (src/memes/trending.ts); -Infinity or absent when never viewed. */
  trending?: number
}

/** A public meme as the database gives it to the read model: the wire record and its perceptual hash. */
export type PublicMeme = MemeT & { phash: string | null; trending: number }

/** New counter totals and trending score of a meme, as a flush writes them. */
export interface MemeCounts {
  id: string
  view_count: number
  download_count: number
  trending: number
}

// The batch columns, read from COPY's text output in this order: no status or mime (the same for every public
// meme); created_at as whole epoch milliseconds, as a Date would hold it, so no Date is parsed or formatted per row.
const RECORD_COLUMNS = `m.id, floor(extract(epoch FROM m.created_at) * 1000)::int8, m.byte_size, m.width, m.height,
  m.original_mime, m.original_name, m.moderation_score, m.moderation_reason, m.view_count, m.download_count, m.demo, m.caption, m.phash, m.trending`
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
    tags: row.textArray(15) ?? [],
    phash: row.text(13),
    trending: row.isNull(14) ? NO_TRENDING_SCORE : row.number(14),
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
  /** Newest first (default), or by trending score then newest (memes_public_trending's order). */
  order?: 'newest' | 'trending'
}

const LIST_ORDER = {
  newest: 'm.created_at DESC, m.id DESC',
  trending: 'm.trending DESC NULLS LAST, m.created_at DESC, m.id DESC',
}

interface CountsRow {
  id: string
  view_count: number | string
  download_count: number | string
  trending: number | null
}

function toCounts(row: CountsRow): MemeCounts {
  return {
    id: row.id,
    view_count: Number(row.view_count),
    download_count: Number(row.download_count),
    trending: row.trending === null ? NO_TRENDING_SCORE : Number(row.trending),
  }
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
      const { rows } = await db.query<MemeRow>(
        `SELECT ${COLUMNS}, m.phash, m.trending FROM memes m WHERE m.id = $1 AND ${PUBLIC}`,
        [id],
      )
      const row = rows[0]
      if (!row) return null
      const trending = row.trending === null || row.trending === undefined ? NO_TRENDING_SCORE : Number(row.trending)
      return { ...toMeme(row), phash: row.phash ?? null, trending }
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

    /** Newest first or trending, all tags required: the database answer used while the read model is loading. */
    async listPublic({ tags, offset, limit, order = 'newest' }: PublicListQuery): Promise<{ total: number; memes: MemeT[] }> {
      // Without tags no filter at all: its per-row subquery would hide the order's index from the planner.
      const filtered = tags.length > 0
      const tagFilter = (param: string) =>
        filtered
          ? `AND (SELECT count(*) FROM meme_tags t WHERE t.meme_id = m.id AND t.tag = ANY(${param}::text[])) = cardinality(${param}::text[])`
          : ''
      const count = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM memes m WHERE ${PUBLIC} ${tagFilter('$1')}`,
        filtered ? [tags] : [],
      )
      const { rows } = await db.query<MemeRow>(
        `SELECT ${COLUMNS} FROM memes m WHERE ${PUBLIC} ${tagFilter('$3')} ORDER BY ${LIST_ORDER[order]} OFFSET $1 LIMIT $2`,
        filtered ? [offset, limit, tags] : [offset, limit],
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

    /**
     * Adds batched view/download counts, and to the trending score their events at `at` (epoch ms), in one
     * statement; returns the new totals and scores.
     */
    async addCounts(deltas: CounterDelta[], at: number): Promise<MemeCounts[]> {
      if (deltas.length === 0) return []
      const { rows } = await db.query<CountsRow>(
        `UPDATE memes m SET view_count = m.view_count + d.views, download_count = m.download_count + d.downloads,
           trending = ${addScoresSql('m.trending', 'd.score')}
         FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::float8[]) AS d(id, views, downloads, score)
         WHERE m.id = d.id
         RETURNING m.id, m.view_count, m.download_count, m.trending`,
        [
          deltas.map((d) => d.id),
          deltas.map((d) => d.views),
          deltas.map((d) => d.downloads),
          deltas.map((d) => eventScore(d.views, d.downloads, at)),
        ],
      )
      return rows.map(toCounts)
    },

    async findCounts(ids: string[]): Promise<MemeCounts[]> {
      const { rows } = await db.query<CountsRow>(
        'SELECT id, view_count, download_count, trending FROM memes WHERE id = ANY($1::text[])',
        [ids],
      )
      return rows.map(toCounts)
    },
  }
}

export type MemesRepository = ReturnType<typeof createMemesRepository>

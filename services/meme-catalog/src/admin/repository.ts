import type { Queryable } from '@app/common'
import type { Static } from '@sinclair/typebox'
import { type MemeRow, toMeme } from '../memes/repository.ts'
import type { AdminMeme, AdminTag } from './schemas.ts'

type AdminMemeT = Static<typeof AdminMeme>
type Status = AdminMemeT['status']

interface AdminMemeRow extends MemeRow {
  updated_at: Date | string
  phash: string | null
  near_duplicate_of: string[] | null
  caption_source: 'ocr' | 'openai' | 'admin' | null
  job_state: 'queued' | 'running' | 'done' | 'failed' | null
  job_attempts: number | null
  job_error: string | null
  job_updated_at: Date | string | null
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString()

const COLUMNS = `m.id, m.created_at, m.updated_at, m.status, m.byte_size, m.width, m.height, m.mime, m.original_mime,
  m.original_name, m.moderation_score, m.moderation_reason, m.view_count, m.download_count, m.demo, m.caption,
  m.phash, m.near_duplicate_of, m.caption_source,
  coalesce((SELECT array_agg(t.tag ORDER BY t.tag) FROM meme_tags t WHERE t.meme_id = m.id), '{}') AS tags,
  j.state AS job_state, j.attempts AS job_attempts, j.last_error AS job_error, j.updated_at AS job_updated_at`

// The latest caption job of each meme, if any.
const FROM = `memes m LEFT JOIN LATERAL (
    SELECT state, attempts, last_error, updated_at FROM caption_jobs c WHERE c.meme_id = m.id ORDER BY c.id DESC LIMIT 1
  ) j ON true`

function toAdminMeme(row: AdminMemeRow): AdminMemeT {
  const { status: _status, ...publicFields } = toMeme({ ...row, status: 'approved' })
  return {
    ...publicFields,
    status: row.status as Status,
    updatedAt: iso(row.updated_at),
    adminMediaUrl: `/api/admin/memes/${row.id}/media`,
    phash: row.phash,
    nearDuplicateOf: row.near_duplicate_of ?? [],
    captionSource: row.caption_source,
    captionJob:
      row.job_state === null
        ? null
        : {
            state: row.job_state,
            attempts: Number(row.job_attempts),
            lastError: row.job_error,
            updatedAt: iso(row.job_updated_at as Date | string),
          },
  }
}

/** The admin API's reads of memes and the tag catalog; takes the database or an open transaction. */
export function createAdminRepository(db: Queryable) {
  return {
    /** Newest first; deleted memes are never listed. */
    async list(status: Status | undefined, page: number, pageSize: number) {
      const where = status ? `m.deleted_at IS NULL AND m.status = $1` : `m.deleted_at IS NULL AND $1::text IS NULL`
      const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memes m WHERE ${where}`, [status ?? null])
      const total = Number(count.rows[0]?.n ?? 0)
      const totalPages = Math.ceil(total / pageSize)
      const served = Math.max(1, Math.min(page, totalPages))
      const { rows } = await db.query<AdminMemeRow>(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY m.created_at DESC, m.id DESC OFFSET $2 LIMIT $3`,
        [status ?? null, (served - 1) * pageSize, pageSize],
      )
      return { page: served, pageSize, total, totalPages, memes: rows.map(toAdminMeme) }
    },

    async find(id: string): Promise<AdminMemeT | null> {
      const { rows } = await db.query<AdminMemeRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE m.id = $1 AND m.deleted_at IS NULL`, [
        id,
      ])
      return rows[0] ? toAdminMeme(rows[0]) : null
    },

    /** Pending memes oldest first, after the `cursor` meme (any meme, of any status, keeps its place); null: unknown cursor. */
    async pendingAfter(cursor: string | undefined, limit: number): Promise<{ total: number; memes: AdminMemeT[] } | null> {
      if (cursor) {
        const { rows } = await db.query('SELECT 1 FROM memes WHERE id = $1', [cursor])
        if (rows.length === 0) return null
      }
      const count = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM memes WHERE status = 'pending' AND deleted_at IS NULL`,
      )
      const { rows } = await db.query<AdminMemeRow>(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE m.status = 'pending' AND m.deleted_at IS NULL
           AND ($1::text IS NULL OR (m.created_at, m.id) > (SELECT c.created_at, c.id FROM memes c WHERE c.id = $1))
         ORDER BY m.created_at, m.id LIMIT $2`,
        [cursor ?? null, limit],
      )
      return { total: Number(count.rows[0]?.n ?? 0), memes: rows.map(toAdminMeme) }
    },

    /** Tags the captioner proposed for these memes, by meme id. */
    async modelSuggestions(ids: string[]): Promise<Map<string, string[]>> {
      const { rows } = await db.query<{ meme_id: string; tag: string }>(
        'SELECT meme_id, tag FROM meme_tag_suggestions WHERE meme_id = ANY($1::text[]) ORDER BY meme_id, tag',
        [ids],
      )
      const byMeme = new Map<string, string[]>()
      for (const { meme_id, tag } of rows) byMeme.set(meme_id, [...(byMeme.get(meme_id) ?? []), tag])
      return byMeme
    },

    /** Every tag name and alias with the tag it stands for (names first, then aliases). */
    async catalogNames(): Promise<{ tag: string; name: string }[]> {
      const { rows } = await db.query<{ tag: string; name: string }>(
        `SELECT name AS tag, name, 0 AS kind FROM tags UNION ALL SELECT tag, alias AS name, 1 AS kind FROM tag_aliases ORDER BY kind, name`,
      )
      return rows.map((r) => ({ tag: r.tag, name: r.name }))
    },

    /** The stored WebP of a live meme of any status. */
    async findImage(id: string): Promise<Buffer | null> {
      const { rows } = await db.query<{ bytes: Uint8Array }>(
        'SELECT mm.bytes FROM meme_media mm JOIN memes m ON m.id = mm.meme_id WHERE m.id = $1 AND m.deleted_at IS NULL',
        [id],
      )
      const bytes = rows[0]?.bytes
      return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null
    },

    async listTags(): Promise<Static<typeof AdminTag>[]> {
      const { rows } = await db.query<{ name: string; created_at: Date | string; meme_count: number; aliases: string[] }>(
        `SELECT t.name, t.created_at,
           (SELECT count(*)::int FROM meme_tags mt JOIN memes m ON m.id = mt.meme_id WHERE mt.tag = t.name AND m.deleted_at IS NULL) AS meme_count,
           coalesce((SELECT array_agg(a.alias ORDER BY a.alias) FROM tag_aliases a WHERE a.tag = t.name), '{}') AS aliases
         FROM tags t ORDER BY t.name`,
      )
      return rows.map((r) => ({
        name: r.name,
        createdAt: iso(r.created_at),
        memeCount: Number(r.meme_count),
        aliases: r.aliases ?? [],
      }))
    },
  }
}

export type AdminRepository = ReturnType<typeof createAdminRepository>

import { copyText, type Queryable } from '@app/common'
import type { MemeRow } from './repository.ts'

export type MemeStatus = 'approved' | 'pending' | 'rejected'

/** A meme to store: an upload, a demo image, a benchmark or test record. */
export interface NewMeme {
  id: string
  status: MemeStatus
  byteSize: number
  width: number
  height: number
  originalMime: 'image/png' | 'image/jpeg'
  originalName: string
  moderationScore: number
  moderationReason: string
  /** The database clock's now when absent. */
  createdAt?: Date
  /** The database clock's now when absent. */
  updatedAt?: Date
  deletedAt?: Date | null
  caption?: string
  demo?: boolean
  phash?: string | null
  nearDuplicateOf?: string[]
  uploaderIp?: string | null
  /** The normalized WebP; stored beside the row when given. */
  webp?: Buffer
  /** Tags of the meme; added to the catalog when missing. */
  tags?: string[]
  /** Queue a caption job (as every upload does). */
  captionJob?: boolean
}

export interface AuditEntry {
  actor: string
  action: string
  memeId?: string | null
  detail?: Record<string, unknown>
}

const RETURNING = `id, created_at, status, byte_size, width, height, mime, original_mime, original_name, moderation_score,
  moderation_reason, view_count, download_count, demo, caption, '{}'::text[] AS tags`

const jsonRow = (m: NewMeme) => ({
  id: m.id,
  created_at: m.createdAt?.toISOString() ?? null,
  updated_at: m.updatedAt?.toISOString() ?? null,
  status: m.status,
  deleted_at: m.deletedAt?.toISOString() ?? null,
  byte_size: m.byteSize,
  width: m.width,
  height: m.height,
  original_mime: m.originalMime,
  original_name: m.originalName,
  moderation_score: m.moderationScore,
  moderation_reason: m.moderationReason,
  caption: m.caption ?? '',
  demo: m.demo ?? false,
  phash: m.phash ?? null,
  near_duplicate_of: m.nearDuplicateOf ?? [],
  uploader_ip: m.uploaderIp ?? null,
})

const COPY_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'status',
  'deleted_at',
  'byte_size',
  'width',
  'height',
  'original_mime',
  'original_name',
  'moderation_score',
  'moderation_reason',
  'caption',
  'demo',
  'phash',
  'near_duplicate_of',
  'uploader_ip',
]

/** A text[] literal with every element quoted (COPY reads arrays in their literal form). */
const arrayLiteral = (items: string[]) => `{${items.map((item) => `"${item.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`

/** One memes row in COPY text format; `now` stands in for the database clock's default. */
function copyRow(m: NewMeme, now: string): string {
  const row = jsonRow(m)
  return [
    row.id,
    row.created_at ?? now,
    row.updated_at ?? now,
    row.status,
    row.deleted_at,
    row.byte_size,
    row.width,
    row.height,
    row.original_mime,
    row.original_name,
    row.moderation_score,
    row.moderation_reason,
    row.caption,
    row.demo,
    row.phash,
    arrayLiteral(row.near_duplicate_of),
    row.uploader_ip,
  ]
    .map(copyText)
    .join('\t')
}

/** Every statement that changes a meme; only the meme use cases call it (inside their transaction). */
export function createMemeWriteRepository(db: Queryable) {
  return {
    /** Inserts the memes whose id is new (one statement); returns the inserted rows, without tags. */
    async insert(memes: NewMeme[]): Promise<MemeRow[]> {
      if (memes.length === 0) return []
      const { rows } = await db.query<MemeRow>(
        `INSERT INTO memes (id, created_at, updated_at, status, deleted_at, byte_size, width, height, original_mime,
           original_name, moderation_score, moderation_reason, caption, demo, phash, near_duplicate_of, uploader_ip)
         SELECT m.id, coalesce(m.created_at, now()), coalesce(m.updated_at, now()), m.status, m.deleted_at, m.byte_size,
           m.width, m.height, m.original_mime, m.original_name, m.moderation_score, m.moderation_reason, m.caption, m.demo,
           m.phash, m.near_duplicate_of, m.uploader_ip
         FROM jsonb_to_recordset($1::jsonb) AS m(id text, created_at timestamptz, updated_at timestamptz, status text,
           deleted_at timestamptz, byte_size integer, width integer, height integer, original_mime text, original_name text,
           moderation_score integer, moderation_reason text, caption text, demo boolean, phash text,
           near_duplicate_of text[], uploader_ip text)
         ON CONFLICT (id) DO NOTHING
         RETURNING ${RETURNING}`,
        [JSON.stringify(memes.map(jsonRow))],
      )
      return rows
    },

    /**
     * Bulk insert through COPY (corpus loads): no conflict handling, so an id already stored fails the statement;
     * `now` (the transaction's clock) fills createdAt and updatedAt when absent. Returns the rows copied.
     */
    async copy(memes: NewMeme[], now: Date): Promise<number> {
      const stamp = now.toISOString()
      return db.copyFrom(
        'memes',
        COPY_COLUMNS,
        memes.map((m) => copyRow(m, stamp)),
      )
    },

    /** Links memes to catalog tags through COPY: pairs (memeIds[i], tags[i]). */
    async copyLinks(memeIds: string[], tags: string[]): Promise<number> {
      return db.copyFrom(
        'meme_tags',
        ['meme_id', 'tag'],
        memeIds.map((id, i) => `${copyText(id)}\t${copyText(tags[i])}`),
      )
    },

    /** Whether no meme is stored at all (deleted ones count as stored). */
    async catalogEmpty(): Promise<boolean> {
      const { rows } = await db.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM memes) AS empty')
      return rows[0].empty
    },

    /**
     * Drops the foreign keys of meme_tags (it locks the table until the transaction ends) and returns a function
     * that adds them back as they were, which checks every link in one pass instead of one lookup per copied row.
     */
    async suspendLinkForeignKeys(): Promise<() => Promise<void>> {
      const { rows: keys } = await db.query<{ name: string; definition: string }>(
        `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
         WHERE conrelid = 'meme_tags'::regclass AND contype = 'f' ORDER BY conname`,
      )
      const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
      // Names and definitions come from the catalog itself, not from input.
      for (const key of keys) await db.exec(`ALTER TABLE meme_tags DROP CONSTRAINT ${quote(key.name)}`)
      return async () => {
        for (const key of keys) await db.exec(`ALTER TABLE meme_tags ADD CONSTRAINT ${quote(key.name)} ${key.definition}`)
      }
    },

    async insertMedia(memeId: string, webp: Buffer): Promise<void> {
      await db.query('INSERT INTO meme_media (meme_id, bytes) VALUES ($1, $2)', [memeId, webp])
    },

    /** Adds the names missing from the tag catalog (already normalized). */
    async addToCatalog(names: string[]): Promise<void> {
      if (names.length > 0) await db.query('INSERT INTO tags (name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [names])
    },

    /** Links memes to catalog tags: pairs (memeIds[i], tags[i]). */
    async link(memeIds: string[], tags: string[]): Promise<void> {
      if (memeIds.length === 0) return
      await db.query('INSERT INTO meme_tags (meme_id, tag) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING', [
        memeIds,
        tags,
      ])
    },

    /** Remembers bytes moderation refused, so the same file is refused without decoding. */
    async rememberRejected(sha256: string, moderationScore: number, moderationReason: string): Promise<void> {
      await db.query(
        `INSERT INTO rejected_hashes (sha256, moderation_score, moderation_reason) VALUES ($1, $2, $3)
         ON CONFLICT (sha256) DO NOTHING`,
        [sha256, moderationScore, moderationReason],
      )
    },

    /** Locks a live meme for a change and returns its status, or null when missing or deleted. */
    async lock(id: string): Promise<MemeStatus | null> {
      const { rows } = await db.query<{ status: MemeStatus }>(
        'SELECT status FROM memes WHERE id = $1 AND deleted_at IS NULL FOR UPDATE',
        [id],
      )
      return rows[0]?.status ?? null
    },

    async setStatus(id: string, status: MemeStatus): Promise<void> {
      await db.query('UPDATE memes SET status = $2, updated_at = now() WHERE id = $1', [id, status])
    },

    async softDelete(id: string): Promise<void> {
      await db.query('UPDATE memes SET deleted_at = now(), updated_at = now() WHERE id = $1', [id])
    },

    async setCaption(id: string, caption: string): Promise<void> {
      await db.query(`UPDATE memes SET caption = $2, caption_source = 'admin', updated_at = now() WHERE id = $1`, [id, caption])
    },

    /** Replaces the tags of a meme; the names must exist in the catalog. Returns the previous ones. */
    async setTags(id: string, tags: string[]): Promise<string[]> {
      const { rows } = await db.query<{ tag: string }>('DELETE FROM meme_tags WHERE meme_id = $1 RETURNING tag', [id])
      await db.query('INSERT INTO meme_tags (meme_id, tag) SELECT $1, unnest($2::text[])', [id, tags])
      await db.query('UPDATE memes SET updated_at = now() WHERE id = $1', [id])
      return rows.map((r) => r.tag).sort()
    },

    /** A captioner's result: replaces caption and tags (an alias as its tag); names not in the catalog are dropped. */
    /**
     * A caption job's result. `tags` replace the meme's tags; with `suggestOnly` they are kept as suggestions for
     * the admin instead (a meme under review gets no tag no admin accepted). False when the meme is gone.
     */
    async writeCaption(
      memeId: string,
      caption: string,
      source: 'ocr' | 'openai',
      tags: string[],
      { suggestOnly = false } = {},
    ): Promise<boolean> {
      const { rowCount } = await db.query(
        'UPDATE memes SET caption = $2, caption_source = $3, updated_at = now() WHERE id = $1 AND deleted_at IS NULL',
        [memeId, caption, source],
      )
      if (rowCount === 0) return false
      const target = suggestOnly ? 'meme_tag_suggestions' : 'meme_tags'
      await db.query(`DELETE FROM ${target} WHERE meme_id = $1`, [memeId])
      await db.query(
        // A tag named by one of its aliases counts as named.
        `INSERT INTO ${target} (meme_id, tag) SELECT $1, name FROM tags WHERE name = ANY($2::text[])
         UNION SELECT $1, tag FROM tag_aliases WHERE alias = ANY($2::text[]) ON CONFLICT DO NOTHING`,
        [memeId, tags],
      )
      return true
    },

    async touch(ids: string[]): Promise<void> {
      if (ids.length > 0) await db.query('UPDATE memes SET updated_at = now() WHERE id = ANY($1::text[])', [ids])
    },

    async audit({ actor, action, memeId = null, detail = {} }: AuditEntry): Promise<void> {
      await db.query('INSERT INTO admin_audit (actor, action, meme_id, detail) VALUES ($1, $2, $3, $4::jsonb)', [
        actor,
        action,
        memeId,
        JSON.stringify(detail),
      ])
    },
  }
}

export type MemeWriteRepository = ReturnType<typeof createMemeWriteRepository>

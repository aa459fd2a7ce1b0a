import type { Queryable } from '@app/common'

/** The one spelling of a tag name: NFC, trimmed, inner whitespace collapsed to one space, lowercase. */
export function foldTagName(raw: string): string {
  return raw.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase()
}

/** The admin-managed tag catalog; takes the database or an open transaction. */
export function createTagsRepository(db: Queryable) {
  return {
    /** Every tag name, sorted. */
    async list(): Promise<string[]> {
      const { rows } = await db.query<{ name: string }>('SELECT name FROM tags ORDER BY name')
      return rows.map((r) => r.name)
    },

    /** Adds a tag; false when it already exists. The name must already be normalized. */
    async create(name: string): Promise<boolean> {
      const { rowCount } = await db.query('INSERT INTO tags (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name])
      return rowCount > 0
    },

    async find(name: string): Promise<{ name: string; createdAt: Date } | null> {
      const { rows } = await db.query<{ name: string; created_at: Date | string }>(
        'SELECT name, created_at FROM tags WHERE name = $1',
        [name],
      )
      return rows[0] ? { name: rows[0].name, createdAt: new Date(rows[0].created_at) } : null
    },

    /**
     * Removes a tag from the catalog and from every meme. Returns whether it existed and the memes
     * that carried it.
     */
    async delete(name: string): Promise<{ deleted: boolean; memeIds: string[] }> {
      // The outer SELECT sees meme_tags as before the cascade.
      const { rows } = await db.query<{ deleted: number; meme_ids: string[] }>(
        `WITH del AS (DELETE FROM tags WHERE name = $1 RETURNING name)
         SELECT (SELECT count(*) FROM del)::int AS deleted,
                coalesce((SELECT array_agg(meme_id ORDER BY meme_id) FROM meme_tags WHERE tag = $1), '{}') AS meme_ids`,
        [name],
      )
      return { deleted: Number(rows[0]?.deleted ?? 0) > 0, memeIds: rows[0]?.meme_ids ?? [] }
    },

    /** Of `names`, those in the catalog. */
    async existing(names: string[]): Promise<string[]> {
      const { rows } = await db.query<{ name: string }>('SELECT name FROM tags WHERE name = ANY($1::text[]) ORDER BY name', [
        names,
      ])
      return rows.map((r) => r.name)
    },
  }
}

export type TagsRepository = ReturnType<typeof createTagsRepository>

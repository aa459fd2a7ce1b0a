import type { Queryable } from '@app/common'

/** Held by every change of tag names or aliases: they share one namespace, checked before the write. */
const TAG_NAMES_LOCK = 0x7a67_6e61

export interface TagAlias {
  alias: string
  tag: string
  createdAt: Date
}

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

    /** Serializes changes of tag names and aliases until the transaction ends (call inside one). */
    async lockNames(): Promise<void> {
      await db.query('SELECT pg_advisory_xact_lock($1)', [TAG_NAMES_LOCK])
    },

    /** Every alias, sorted by alias. */
    async aliases(): Promise<TagAlias[]> {
      const { rows } = await db.query<{ alias: string; tag: string; created_at: Date | string }>(
        'SELECT alias, tag, created_at FROM tag_aliases ORDER BY alias',
      )
      return rows.map((r) => ({ alias: r.alias, tag: r.tag, createdAt: new Date(r.created_at) }))
    },

    /** The aliases of one tag, sorted. */
    async aliasesOf(tag: string): Promise<string[]> {
      const { rows } = await db.query<{ alias: string }>('SELECT alias FROM tag_aliases WHERE tag = $1 ORDER BY alias', [tag])
      return rows.map((r) => r.alias)
    },

    /** The tag an alias names, or null. */
    async aliasTarget(alias: string): Promise<string | null> {
      const { rows } = await db.query<{ tag: string }>('SELECT tag FROM tag_aliases WHERE alias = $1', [alias])
      return rows[0]?.tag ?? null
    },

    /** Adds an alias of an existing tag; the caller has checked the namespace under lockNames. */
    async createAlias(alias: string, tag: string): Promise<TagAlias> {
      const { rows } = await db.query<{ created_at: Date | string }>(
        'INSERT INTO tag_aliases (alias, tag) VALUES ($1, $2) RETURNING created_at',
        [alias, tag],
      )
      return { alias, tag, createdAt: new Date(rows[0].created_at) }
    },

    /** Removes an alias of `tag`; false when the tag has no such alias. */
    async deleteAlias(alias: string, tag: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM tag_aliases WHERE alias = $1 AND tag = $2', [alias, tag])
      return rowCount > 0
    },

    /** Of `names` (normalized), the catalog tag each one names: itself, or the tag it is an alias of. */
    async resolve(names: string[]): Promise<Map<string, string>> {
      const { rows } = await db.query<{ name: string; tag: string }>(
        `SELECT name, name AS tag FROM tags WHERE name = ANY($1::text[])
         UNION ALL SELECT alias, tag FROM tag_aliases WHERE alias = ANY($1::text[])`,
        [names],
      )
      return new Map(rows.map((r) => [r.name, r.tag]))
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

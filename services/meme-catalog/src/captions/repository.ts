import type { Queryable } from '@app/common'

/** What a caption job reads of a meme; takes the database or an open transaction. */
export function createCaptionsRepository(db: Queryable) {
  return {
    /** The stored WebP of a meme that still exists (not deleted), or null. */
    async findImage(memeId: string): Promise<Buffer | null> {
      const { rows } = await db.query<{ bytes: Uint8Array }>(
        `SELECT mm.bytes FROM meme_media mm JOIN memes m ON m.id = mm.meme_id WHERE m.id = $1 AND m.deleted_at IS NULL`,
        [memeId],
      )
      const bytes = rows[0]?.bytes
      return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null
    },

    async catalogTags(): Promise<string[]> {
      const { rows } = await db.query<{ name: string }>('SELECT name FROM tags ORDER BY name')
      return rows.map((r) => r.name)
    },

    /** Every alias name (the tag it stands for is resolved when the result is stored). */
    async aliasNames(): Promise<string[]> {
      const { rows } = await db.query<{ alias: string }>('SELECT alias FROM tag_aliases ORDER BY alias')
      return rows.map((r) => r.alias)
    },

    /** True when an admin edited the meme's caption or tags at or after `since` (their edit wins). */
    async editedByAdminSince(memeId: string, since: Date): Promise<boolean> {
      const { rows } = await db.query(
        `SELECT 1 FROM admin_audit WHERE meme_id = $1 AND action = 'meme.edit' AND created_at >= $2 LIMIT 1`,
        [memeId, since],
      )
      return rows.length > 0
    },
  }
}

import type { Queryable } from '@app/common'
import type { Rendition, RenditionName } from './renditions.ts'

export interface RenditionInfo {
  width: number
  height: number
  /** Bytes of the WebP file. */
  size: number
}

/** SQL of the stored renditions (meme_renditions); takes the database or an open transaction. */
export function createRenditionsRepository(db: Queryable) {
  return {
    /** Width, height and size of every stored rendition of these memes. */
    async infoOf(ids: string[]): Promise<Map<string, Map<RenditionName, RenditionInfo>>> {
      const found = new Map<string, Map<RenditionName, RenditionInfo>>()
      if (ids.length === 0) return found
      const { rows } = await db.query<{ meme_id: string; name: RenditionName; width: number; height: number; byte_size: number }>(
        'SELECT meme_id, name, width, height, byte_size FROM meme_renditions WHERE meme_id = ANY($1::text[])',
        [ids],
      )
      for (const row of rows) {
        let set = found.get(row.meme_id)
        if (!set) {
          set = new Map()
          found.set(row.meme_id, set)
        }
        set.set(row.name, { width: Number(row.width), height: Number(row.height), size: Number(row.byte_size) })
      }
      return found
    },

    async bytesOf(id: string, name: RenditionName): Promise<Buffer | null> {
      const { rows } = await db.query<{ bytes: Uint8Array }>(
        'SELECT bytes FROM meme_renditions WHERE meme_id = $1 AND name = $2',
        [id, name],
      )
      const bytes = rows[0]?.bytes
      return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null
    },

    /** Stores renditions; ones already stored (made at the same time elsewhere) are kept as they are. */
    async insert(id: string, renditions: Rendition[]): Promise<void> {
      if (renditions.length === 0) return
      // One row of parameters per rendition (bytea arrays are not passed the same way by every driver).
      const params: unknown[] = [id]
      const rows = renditions.map((r) => {
        const at = params.push(r.name, r.bytes, r.width, r.height) - 3
        return `($1, $${at}, $${at + 1}::bytea, $${at + 2}::int, $${at + 3}::int, octet_length($${at + 1}::bytea))`
      })
      await db.query(
        `INSERT INTO meme_renditions (meme_id, name, bytes, width, height, byte_size) VALUES ${rows.join(', ')}
         ON CONFLICT DO NOTHING`,
        params,
      )
    },
  }
}

export type RenditionsRepository = ReturnType<typeof createRenditionsRepository>

import { LRUCache } from 'lru-cache'

/**
 * The WebP bytes of recently served memes, least recently used dropped first, bounded by their total size.
 * Keyed by meme id, which is the SHA-256 of the upload and the ETag: the bytes stored under an id never change
 * (edits and recaptions touch caption and tags only), so an entry cannot go stale. Whether a meme may be served
 * is never decided here: the route asks the read model first, and entries of memes that leave it are dropped.
 */
export interface MediaCache {
  get(id: string): Buffer | undefined
  set(id: string, bytes: Buffer): void
  delete(id: string): void
  /** Drops every entry whose meme `isPublic` no longer accepts (after a full reload of the read model). */
  retain(isPublic: (id: string) => boolean): void
  /** Bytes held now (never above `maxBytes`). */
  readonly bytes: number
  readonly entries: number
  readonly maxBytes: number
}

/** A cache of at most `megabytes` MiB of image bytes; null when `megabytes` is 0 (caching off). */
export function createMediaCache(megabytes: number): MediaCache | null {
  if (megabytes <= 0) return null
  const maxBytes = megabytes * 1024 * 1024
  // maxEntrySize defaults to maxSize: an image larger than the whole cache is simply not kept.
  const lru = new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (bytes) => Math.max(1, bytes.length) })
  return {
    get: (id) => lru.get(id),
    set: (id, bytes) => {
      lru.set(id, ownCopy(bytes))
    },
    delete: (id) => {
      lru.delete(id)
    },
    retain(isPublic) {
      for (const id of [...lru.keys()]) if (!isPublic(id)) lru.delete(id)
    },
    get bytes() {
      return lru.calculatedSize
    },
    get entries() {
      return lru.size
    },
    maxBytes,
  }
}

/**
 * The bytes in memory of their own: a database driver may hand out a view into a larger message buffer, which
 * the cache would otherwise keep alive whole while counting only the view.
 */
function ownCopy(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes
  const copy = Buffer.allocUnsafeSlow(bytes.length)
  bytes.copy(copy)
  return copy
}

import type { Database } from '@app/common'
import type { FastifyBaseLogger } from 'fastify'
import { LRUCache } from 'lru-cache'
import { createSemaphore } from '../uploads/semaphore.ts'
import type { MediaCache } from './cache.ts'
import { RENDITION_NAMES, type RenditionName, renderAll } from './renditions.ts'
import { createRenditionsRepository, type RenditionInfo } from './renditions-repository.ts'

export type RenditionSet = ReadonlyMap<RenditionName, RenditionInfo>

/** Memes whose rendition sizes are kept in memory (a few hundred bytes each). */
const INFO_ENTRIES = 20_000
/** Memes rendered at once, and waiting for it at most; past that the caller is answered 503. */
const RENDER_SLOTS = 1
const RENDER_WAITING = 64

export interface RenditionStoreOptions {
  db: Database
  /** The stored image of a public meme, or null. */
  original(id: string): Promise<Buffer | null>
  /** Image bytes of hot renditions, keyed `<id>/<name>` (null: no cache). */
  cache: MediaCache | null
  log: FastifyBaseLogger
}

/**
 * The renditions of public memes: made once per meme from its stored image (all six from one decode, on first
 * need), stored in meme_renditions and read back from there. Rendering is bounded: one meme at a time, a short
 * waiting line, and concurrent requests for the same meme share one rendering.
 */
export function createRenditionStore({ db, original, cache, log }: RenditionStoreOptions) {
  const repo = createRenditionsRepository(db)
  const slots = createSemaphore(RENDER_SLOTS, RENDER_WAITING)
  const infoCache = new LRUCache<string, RenditionSet>({ max: INFO_ENTRIES })
  const rendering = new Map<string, Promise<RenditionSet | null>>()

  function render(id: string): Promise<RenditionSet | null> {
    const running = rendering.get(id)
    if (running) return running
    const work = (async () => {
      const image = await original(id)
      if (!image) return null
      const renditions = await slots.run(() => renderAll(image))
      await repo.insert(id, renditions)
      log.debug({ memeId: id }, 'renditions stored')
      // Fresh bytes are likely asked for next (a client shows what it was just told about).
      for (const r of renditions) cache?.set(`${id}/${r.name}`, r.bytes)
      return new Map(renditions.map((r) => [r.name, { width: r.width, height: r.height, size: r.bytes.length }]))
    })().finally(() => rendering.delete(id))
    rendering.set(id, work)
    return work
  }

  const complete = (set: RenditionSet | undefined): set is RenditionSet =>
    set !== undefined && RENDITION_NAMES.every((name) => set.has(name))

  return {
    /**
     * Width, height and size of every rendition of these public memes, rendering the ones never rendered (null for a
     * meme without a stored image). Throws SemaphoreFullError when too many renderings wait.
     */
    async infoOf(ids: string[]): Promise<Map<string, RenditionSet | null>> {
      const result = new Map<string, RenditionSet | null>()
      const missing: string[] = []
      for (const id of ids) {
        const known = infoCache.get(id)
        if (known) result.set(id, known)
        else missing.push(id)
      }
      if (missing.length === 0) return result
      const stored = await repo.infoOf(missing)
      const unrendered: string[] = []
      for (const id of missing) {
        const set = stored.get(id)
        if (complete(set)) {
          infoCache.set(id, set)
          result.set(id, set)
        } else unrendered.push(id)
      }
      // One after another: the slots serialize them anyway, and a failure stops the rest early.
      for (const id of unrendered) {
        const set = await render(id)
        if (set) infoCache.set(id, set)
        result.set(id, set)
      }
      return result
    },

    /** The WebP bytes of one rendition of a public meme (rendered on first need), or null without a stored image. */
    async bytesOf(id: string, name: RenditionName): Promise<Buffer | null> {
      const key = `${id}/${name}`
      const cached = cache?.get(key)
      if (cached) return cached
      const stored = await repo.bytesOf(id, name)
      if (stored) {
        cache?.set(key, stored)
        return stored
      }
      if (!(await render(id))) return null
      return cache?.get(key) ?? repo.bytesOf(id, name)
    },
  }
}

export type RenditionStore = ReturnType<typeof createRenditionStore>

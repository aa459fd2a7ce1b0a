import { randomUUID } from 'node:crypto'
import type { Database } from '@app/common'
import type { FastifyBaseLogger } from 'fastify'
import { createMemesRepository, type MemeCounts } from '../memes/repository.ts'
import { createTagsRepository } from '../tags/repository.ts'
import { ReadModel } from './read-model.ts'

/** NOTIFY channel shared by every instance of the catalog on one database. */
export const CHANGE_CHANNEL = 'meme_changed'
/** Memes per read of the build: large enough that round trips do not dominate, small enough to bound memory. */
export const BUILD_BATCH = 10_000
/** Memes per COPY on the embedded database, which returns a COPY's output whole (about 12 MB here). */
export const EMBEDDED_SEGMENT = 50_000
// pg_notify payloads must stay under 8000 bytes: 64-char ids, ~100 per message.
const IDS_PER_NOTIFY = 100

interface ChangeMessage {
  /** The instance that made the change (it has applied it already). */
  o: string
  id?: string
  all?: true
  counts?: string[]
  aliases?: true
}

/** This instance's copy of the read model (search index and public records), kept current across instances. */
export interface ReadModelReplica {
  /** The read model, or null until the first build from the database finished. */
  readonly current: ReadModel | null
  /** Resolves true once the model is ready, false after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<boolean>
  /**
   * Call after every committed change of a meme (status, caption, tags, deletion): re-reads it,
   * updates this instance's read model and tells the other instances. Never rejects.
   */
  memeChanged(id: string): Promise<void>
  /** Reloads everything here and in every other instance (bulk changes, e.g. a tag removed). */
  catalogChanged(): Promise<void>
  /** Call after every committed change of tag aliases: reloads them here and in every other instance. Never rejects. */
  aliasesChanged(): Promise<void>
  /** New view/download totals and trending scores written by this instance: applied here, announced to the others. */
  countsChanged(totals: MemeCounts[]): Promise<void>
  /**
   * `listener(id)` runs after this instance's model dropped meme `id` (deleted, rejected, back to pending; made
   * here or announced by another instance), `listener()` after the model was rebuilt whole.
   */
  onRemoved(listener: (id?: string) => void): void
  close(): Promise<void>
}

export async function createReadModelReplica(
  db: Database,
  log: FastifyBaseLogger,
  {
    buildBatch = BUILD_BATCH,
    segment = db.driver === 'pglite' ? EMBEDDED_SEGMENT : Number.POSITIVE_INFINITY,
  }: { buildBatch?: number; segment?: number } = {},
): Promise<ReadModelReplica> {
  const origin = randomUUID()
  const repo = createMemesRepository(db)
  const tagsRepo = createTagsRepository(db)
  let model: ReadModel | null = null
  let closed = false
  let building: Promise<void> | null = null
  let rebuildRequested = false
  // Ids changed while a build reads its snapshot: re-read after the swap so none is lost.
  const dirty = new Set<string>()
  const chains = new Map<string, Promise<void>>()
  let retryTimer: NodeJS.Timeout | undefined
  const removedListeners: ((id?: string) => void)[] = []
  // Alias reloads run one at a time (a later one reads a later state); a build reloads them after its swap if one
  // was asked for while it read.
  let aliasChain: Promise<void> = Promise.resolve()
  let aliasesAsked = 0
  let markReady: () => void
  const readyPromise = new Promise<void>((resolve) => {
    markReady = resolve
  })

  function scheduleResync(delayMs: number) {
    if (closed || retryTimer) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      void resync()
    }, delayMs)
    retryTimer.unref()
  }

  async function buildOnce() {
    dirty.clear()
    const started = performance.now()
    // Streamed in batches; changes committed meanwhile are in `dirty` and re-read below, as with one snapshot.
    const asked = aliasesAsked
    const next = await ReadModel.build(repo.publicBatches(buildBatch, segment))
    next.setAliases(await readAliases())
    model = next
    if (aliasesAsked !== asked) void reloadAliases()
    for (const listener of removedListeners) listener()
    markReady()
    log.info({ memes: next.size, ms: Math.round(performance.now() - started) }, 'read model built')
    const again = [...dirty]
    dirty.clear()
    await Promise.all(again.map((id) => refresh(id)))
  }

  function resync(): Promise<void> {
    if (building) {
      rebuildRequested = true
      return building
    }
    building = (async () => {
      try {
        do {
          rebuildRequested = false
          await buildOnce()
        } while (rebuildRequested && !closed)
      } catch (error) {
        if (closed) return
        log.warn({ err: error }, 'read model build failed; retrying')
        scheduleResync(1000)
      }
    })().finally(() => {
      building = null
    })
    return building
  }

  /** Re-reads one meme; changes to one id apply in order. */
  function refresh(id: string): Promise<void> {
    const previous = chains.get(id) ?? Promise.resolve()
    const next = previous.then(async () => {
      if (building) dirty.add(id)
      const meme = await repo.findPublic(id)
      if (!model) return
      if (meme) model.upsert(meme)
      else {
        model.remove(id)
        for (const listener of removedListeners) listener(id)
      }
    })
    const settled = next.catch((error) => {
      if (closed) return
      // The model may now be stale for this id: a full reload repairs it.
      log.warn({ err: error, memeId: id }, 'could not refresh a meme; resyncing')
      scheduleResync(1000)
    })
    chains.set(id, settled)
    void settled.finally(() => {
      if (chains.get(id) === settled) chains.delete(id)
    })
    return settled
  }

  async function readAliases(): Promise<Map<string, string>> {
    return new Map((await tagsRepo.aliases()).map((a) => [a.alias, a.tag]))
  }

  function reloadAliases(): Promise<void> {
    aliasesAsked++
    aliasChain = aliasChain
      .then(async () => {
        const aliases = await readAliases()
        model?.setAliases(aliases)
      })
      .catch((error) => {
        if (closed) return
        log.warn({ err: error }, 'could not reload tag aliases; resyncing')
        scheduleResync(1000)
      })
    return aliasChain
  }

  async function applyCounts(ids: string[]) {
    const totals = await repo.findCounts(ids)
    for (const t of totals) model?.setCounts(t)
  }

  async function announce(message: Omit<ChangeMessage, 'o'>) {
    try {
      await db.notify(CHANGE_CHANNEL, JSON.stringify({ o: origin, ...message }))
    } catch (error) {
      if (!closed) log.warn({ err: error }, 'could not notify other instances')
    }
  }

  function onMessage(payload: string) {
    let message: ChangeMessage
    try {
      message = JSON.parse(payload)
    } catch {
      return
    }
    if (message.o === origin || closed) return
    if (message.all) void resync()
    else if (message.aliases) void reloadAliases()
    else if (typeof message.id === 'string') void refresh(message.id)
    else if (Array.isArray(message.counts))
      applyCounts(message.counts.filter((id) => typeof id === 'string')).catch((error) =>
        log.warn({ err: error }, 'could not read counters'),
      )
  }

  // Missed notifications while the connection was down: reload everything.
  const unlisten = await db.listen(CHANGE_CHANNEL, onMessage, { onReconnect: () => void resync() })
  void resync()

  return {
    get current() {
      return model
    },
    async whenReady(timeoutMs) {
      if (model) return true
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs)
      })
      const ok = await Promise.race([readyPromise.then(() => true as const), timeout])
      clearTimeout(timer)
      return ok
    },
    async memeChanged(id) {
      await refresh(id)
      await announce({ id })
    },
    async catalogChanged() {
      await resync()
      await announce({ all: true })
    },
    async aliasesChanged() {
      await reloadAliases()
      await announce({ aliases: true })
    },
    async countsChanged(totals) {
      for (const t of totals) model?.setCounts(t)
      for (let i = 0; i < totals.length; i += IDS_PER_NOTIFY) {
        await announce({ counts: totals.slice(i, i + IDS_PER_NOTIFY).map((t) => t.id) })
      }
    },
    onRemoved(listener) {
      removedListeners.push(listener)
    },
    async close() {
      closed = true
      if (retryTimer) clearTimeout(retryTimer)
      await unlisten().catch(() => {})
      await building
    },
  }
}

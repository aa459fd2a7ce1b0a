import type { CounterDelta } from '../memes/repository.ts'

export interface MediaCounters {
  /** Counts one delivered image (a view, or a download for ?download=1). */
  hit(id: string, download: boolean): void
  /**
   * Writes what was counted so far (one statement), as events at `at` (epoch ms, default now) for the trending
   * score; counts are kept for the next try on failure.
   */
  flush(at?: number): Promise<void>
  /** Stops the timer and writes the rest. */
  close(): Promise<void>
  readonly pendingCount: number
}

/**
 * View and download counts gathered in memory and written in one batch every `intervalMs`,
 * so serving an image never waits for (or queues) a write.
 */
export function createMediaCounters(
  write: (deltas: CounterDelta[], at: number) => Promise<void>,
  intervalMs: number,
  log: { warn: (o: unknown, m?: string) => void },
): MediaCounters {
  let pending = new Map<string, CounterDelta>()
  let running: Promise<void> | null = null
  const timer = setInterval(() => void flush(), intervalMs)
  timer.unref()

  function hit(id: string, download: boolean) {
    let delta = pending.get(id)
    if (!delta) {
      delta = { id, views: 0, downloads: 0 }
      pending.set(id, delta)
    }
    if (download) delta.downloads++
    else delta.views++
  }

  async function flushOnce(at: number | undefined) {
    if (pending.size === 0) return
    const batch = pending
    pending = new Map()
    try {
      await write([...batch.values()], at ?? Date.now())
    } catch (error) {
      // Put them back: they are added to whatever was counted meanwhile and written next time.
      for (const d of batch.values()) {
        const current = pending.get(d.id)
        if (current) {
          current.views += d.views
          current.downloads += d.downloads
        } else pending.set(d.id, d)
      }
      log.warn({ err: error, memes: batch.size }, 'could not write media counters; will retry')
    }
  }

  async function flush(at?: number) {
    // One write at a time; a flush asked for during a write runs after it.
    while (running) await running
    running = flushOnce(at).finally(() => {
      running = null
    })
    return running
  }

  return {
    hit,
    flush,
    async close() {
      clearInterval(timer)
      await flush()
    },
    get pendingCount() {
      return pending.size
    },
  }
}

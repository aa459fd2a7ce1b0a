/** Thrown by run() when every slot is busy and the waiting line is full. */
export class SemaphoreFullError extends Error {
  constructor() {
    super('every slot is busy and the waiting line is full')
    this.name = 'SemaphoreFullError'
  }
}

/**
 * Runs at most `slots` tasks at once; up to `maxWaiting` more wait in arrival order and any
 * beyond that are refused at once, so a burst cannot pile up memory and latency without bound.
 */
export function createSemaphore(slots: number, maxWaiting = Number.POSITIVE_INFINITY) {
  let running = 0
  const waiting: (() => void)[] = []
  return {
    /** Tasks running now and tasks waiting for a slot. */
    get load() {
      return { running, waiting: waiting.length }
    },
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (running >= slots) {
        if (waiting.length >= maxWaiting) throw new SemaphoreFullError()
        await new Promise<void>((resolve) => waiting.push(resolve))
      } else running++
      try {
        return await task()
      } finally {
        const next = waiting.shift()
        if (next) next()
        else running--
      }
    },
  }
}

import { Worker } from 'node:worker_threads'
import { HttpError } from '@app/common'
import type { Prediction } from './score.ts'
import type { WorkerMessage } from './worker.ts'

export interface Classifier {
  /** Resolves once the model is loaded (rejects if it cannot be). */
  ready(): Promise<void>
  /** Classifies 224x224 RGB pixels; requests queue in order. */
  classify(pixels: Uint8Array): Promise<Prediction[]>
  /** Requests waiting or running. */
  readonly queued: number
  close(): Promise<void>
}

export interface ClassifierOptions {
  log: { info: (o: unknown, m?: string) => void; error: (o: unknown, m?: string) => void }
  /** More waiting requests than this answer 503 instead of piling up memory. */
  maxQueue?: number
}

/** The worker thread: compiled beside dist/server.js in the build, worker.ts through tsx from the sources. */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./moderation-worker.js', import.meta.url))
  const workerUrl = new URL('./worker.ts', import.meta.url).href
  // Worker threads do not inherit the parent's TypeScript loader on Node 20: register tsx first, then load the worker.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}) })`
  return new Worker(bootstrap, { eval: true })
}

const unavailable = () => new HttpError(503, 'Moderation is unavailable; try again shortly.', { 'Retry-After': 5 })

/** nsfwjs in one worker thread, started now (off the request path) and restarted if it dies. */
export function createClassifier({ log, maxQueue = 32 }: ClassifierOptions): Classifier {
  let worker: Worker | undefined
  let readyPromise: Promise<void> = Promise.resolve()
  let closed = false
  let nextId = 1
  // Counted from the call on, so a burst cannot slip past maxQueue while awaiting readiness.
  let inflight = 0
  const pending = new Map<number, { resolve: (p: Prediction[]) => void; reject: (e: Error) => void }>()

  function failAll(error: Error) {
    for (const { reject } of pending.values()) reject(error)
    pending.clear()
  }

  function start() {
    const current = startWorker()
    worker = current
    readyPromise = new Promise<void>((resolve, reject) => {
      current.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          log.info({ backend: message.backend, loadMs: Math.round(message.loadMs) }, 'moderation model loaded')
          resolve()
        } else if (message.type === 'fatal') {
          reject(new Error(message.message))
        } else {
          const entry = pending.get(message.id)
          if (!entry) return
          pending.delete(message.id)
          if (message.type === 'result') entry.resolve(message.predictions)
          else entry.reject(new Error(message.message))
        }
      })
      current.on('error', (error) => {
        log.error({ err: error }, 'moderation worker failed')
        reject(error)
      })
      current.on('exit', (code) => {
        if (worker === current) worker = undefined
        reject(new Error(`moderation worker exited with code ${code}`))
        failAll(unavailable())
      })
    })
    // A failed load is reported to the requests that wait for it, not as an unhandled rejection.
    readyPromise.catch((error) => log.error({ err: error }, 'moderation model could not be loaded'))
  }

  start()

  return {
    ready: () => readyPromise,
    get queued() {
      return inflight
    },
    async classify(pixels) {
      if (closed || inflight >= maxQueue) throw unavailable()
      inflight++
      try {
        if (!worker) start()
        try {
          await readyPromise
        } catch {
          // Try a fresh worker on the next request rather than failing forever.
          void worker?.terminate()
          worker = undefined
          throw unavailable()
        }
        const target = worker
        if (!target || closed) throw unavailable()
        const id = nextId++
        return await new Promise<Prediction[]>((resolve, reject) => {
          pending.set(id, { resolve, reject })
          target.postMessage({ id, pixels })
        })
      } finally {
        inflight--
      }
    },
    async close() {
      closed = true
      const current = worker
      worker = undefined
      failAll(unavailable())
      await current?.terminate()
    },
  }
}

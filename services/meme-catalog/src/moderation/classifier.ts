import { Worker } from 'node:worker_threads'
import { HttpError } from '@app/common'
import type { Prediction } from './score.ts'
import type { WorkerMessage } from './worker.ts'

export interface Classifier {
  /** Loads the model now if it is not loaded; resolves once it is (rejects if it cannot be). */
  ready(): Promise<void>
  /** Whether the worker holding the model is running (started by the first request, stopped when idle). */
  readonly loaded: boolean
  /** Classifies 224x224 RGB pixels; requests queue in order. */
  classify(pixels: Uint8Array): Promise<Prediction[]>
  /** Requests waiting or running. */
  readonly queued: number
  /** Why the classifier cannot serve: its last load failed (the next upload retries) or it is closed. */
  readonly problem: string | undefined
  close(): Promise<void>
}

export interface ClassifierOptions {
  log: { info: (o: unknown, m?: string) => void; error: (o: unknown, m?: string) => void }
  /** More waiting requests than this answer 503 instead of piling up memory. */
  maxQueue?: number
  /** The worker (model, WASM heap, about 80 MiB) stops after this long without a request; 0 keeps it. */
  idleMs?: number
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

/**
 * nsfwjs in one worker thread, started by the first request (or ready()), restarted if it dies, and
 * stopped after `idleMs` without requests so an idle catalog does not hold the model's memory.
 */
export function createClassifier({ log, maxQueue = 32, idleMs = 0 }: ClassifierOptions): Classifier {
  let worker: Worker | undefined
  let idleTimer: NodeJS.Timeout | undefined
  let readyPromise: Promise<void> = Promise.resolve()
  let closed = false
  let loadFailed = false
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
    loadFailed = false
    readyPromise = new Promise<void>((resolve, reject) => {
      current.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          log.info(
            { backend: message.backend, backends: message.backends, loadMs: Math.round(message.loadMs) },
            'moderation model loaded',
          )
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
        reject(new Error(`moderation worker exited with code ${code}`))
        // A worker stopped when idle had no requests; the ones pending now belong to its successor.
        if (worker !== current) return
        worker = undefined
        failAll(unavailable())
      })
    })
    // A failed load is reported to the requests that wait for it, not as an unhandled rejection.
    readyPromise.catch((error) => {
      // Closed while loading (a shutdown during start-up or an upload): nothing failed.
      if (closed) return
      loadFailed = true
      log.error({ err: error }, 'moderation model could not be loaded')
    })
  }

  /** After the last request, the worker is stopped once `idleMs` passes without another. */
  function stopWhenIdle() {
    clearTimeout(idleTimer)
    if (idleMs <= 0 || inflight > 0 || !worker) return
    idleTimer = setTimeout(() => {
      const current = worker
      if (inflight > 0 || !current) return
      worker = undefined
      log.info({ idleMs }, 'moderation model unloaded after idle time')
      void current.terminate()
    }, idleMs)
    // An idle timer never holds the process open.
    idleTimer.unref()
  }

  return {
    ready() {
      if (!worker && !closed) start()
      return readyPromise
    },
    get loaded() {
      return worker !== undefined
    },
    get queued() {
      return inflight
    },
    get problem() {
      if (closed) return 'the moderation model is closed (shutting down)'
      return loadFailed ? 'the moderation model could not be loaded; the next upload retries' : undefined
    },
    async classify(pixels) {
      if (closed || inflight >= maxQueue) throw unavailable()
      inflight++
      clearTimeout(idleTimer)
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
        stopWhenIdle()
      }
    },
    async close() {
      closed = true
      clearTimeout(idleTimer)
      const current = worker
      worker = undefined
      failAll(unavailable())
      await current?.terminate()
    },
  }
}

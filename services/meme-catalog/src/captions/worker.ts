import type { Database } from '@app/common'
import type { FastifyBaseLogger } from 'fastify'
import { type ClaimedJob, createCaptionJobsRepository } from './jobs.ts'
import type { Captioner } from './providers/index.ts'
import type { CaptionResult } from './providers/types.ts'
import { createCaptionsRepository } from './repository.ts'

export const CAPTION_CHANNEL = 'caption_jobs'
// Backoff never grows beyond an hour between attempts.
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000

export interface CaptionWorkerOptions {
  db: Database
  captioner: Captioner
  log: FastifyBaseLogger
  concurrency: number
  leaseSeconds: number
  maxAttempts: number
  retryBaseMs: number
  pollMs: number
  /** Applies a result if the job is still this worker's (the meme use case); true when the meme changed. */
  applyResult: (job: ClaimedJob, result: CaptionResult, source: 'ocr' | 'openai') => Promise<boolean>
}

export interface CaptionWorker {
  start(): Promise<void>
  /** Looks for due jobs now (NOTIFY, timers, and callers that just queued one). */
  wake(): void
  /** Stops claiming, interrupts running jobs (they go back to the queue) and waits for them. */
  stop(): Promise<void>
  /** Resolves when no job is running and none is due (tests). */
  idle(): Promise<void>
}

export function retryDelayMs(baseMs: number, attempts: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS)
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.slice(0, 500)
}

/**
 * Runs caption jobs from the durable queue: woken by NOTIFY on 'caption_jobs', by a poll timer as
 * a fallback (missed notifications, due retries, expired leases), and by its own retry timers.
 */
export function createCaptionWorker(options: CaptionWorkerOptions): CaptionWorker {
  const { db, captioner, log } = options
  const jobs = createCaptionJobsRepository(db)
  const captions = createCaptionsRepository(db)
  const running = new Set<Promise<void>>()
  const timers = new Set<NodeJS.Timeout>()
  const abort = new AbortController()
  let stopped = true
  let pumping = false
  let again = false
  let pollTimer: NodeJS.Timeout | undefined
  let unlisten: (() => Promise<void>) | undefined

  function wake() {
    if (stopped || options.concurrency === 0) return
    if (pumping) {
      again = true
      return
    }
    void pump()
  }

  async function pump() {
    pumping = true
    try {
      do {
        again = false
        while (!stopped && running.size < options.concurrency) {
          const job = await jobs.claim(options.leaseSeconds)
          if (!job) break
          if (stopped) {
            await jobs.release(job)
            break
          }
          const task: Promise<void> = run(job).finally(() => {
            running.delete(task)
            wake()
          })
          running.add(task)
        }
      } while (again && !stopped)
    } catch (error) {
      log.warn({ err: error }, 'caption queue: could not claim a job; retrying on the next poll')
    } finally {
      pumping = false
    }
  }

  function later(delayMs: number) {
    const timer = setTimeout(() => {
      timers.delete(timer)
      wake()
    }, delayMs)
    timer.unref()
    timers.add(timer)
  }

  async function run(job: ClaimedJob) {
    try {
      if (job.attempts > options.maxAttempts) {
        // Reclaimed after its workers kept dying: stop trying.
        await jobs.fail(job, 'lease expired on the last attempt')
        return
      }
      const image = await captions.findImage(job.memeId)
      if (!image) {
        await jobs.complete(job, 'meme deleted before captioning')
        return
      }
      const [catalog, aliases] = await Promise.all([captions.catalogTags(), captions.aliasNames()])
      const result = await captioner.caption({ image, catalog, aliases, signal: abort.signal })
      if (!result) {
        await jobs.complete(job, `captioner ${captioner.name} produces no captions`)
        return
      }
      if (await options.applyResult(job, result, captioner.name === 'openai' ? 'openai' : 'ocr')) {
        log.info({ memeId: job.memeId, jobId: job.id, tags: result.tags.length }, 'meme captioned')
      }
    } catch (error) {
      await settleFailure(job, error).catch((e) => log.warn({ err: e, jobId: job.id }, 'caption job state not saved'))
    }
  }

  async function settleFailure(job: ClaimedJob, error: unknown) {
    if (stopped && abort.signal.aborted) {
      await jobs.release(job)
      return
    }
    const message = describe(error)
    if (job.attempts >= options.maxAttempts) {
      await jobs.fail(job, message)
      log.warn({ jobId: job.id, memeId: job.memeId, attempts: job.attempts, error: message }, 'caption job failed for good')
      return
    }
    const delay = retryDelayMs(options.retryBaseMs, job.attempts)
    await jobs.retry(job, message, delay)
    log.info({ jobId: job.id, attempts: job.attempts, retryInMs: delay, error: message }, 'caption job will be retried')
    later(delay)
  }

  return {
    async start() {
      if (options.concurrency === 0) return
      stopped = false
      unlisten = await db.listen(CAPTION_CHANNEL, () => wake(), { onReconnect: () => wake() })
      pollTimer = setInterval(wake, options.pollMs)
      pollTimer.unref()
      wake()
    },
    wake,
    async stop() {
      stopped = true
      abort.abort()
      if (pollTimer) clearInterval(pollTimer)
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      await unlisten?.().catch(() => {})
      while (pumping || running.size > 0) {
        await Promise.allSettled([...running])
        if (pumping) await new Promise((resolve) => setTimeout(resolve, 5))
      }
    },
    async idle() {
      if (options.concurrency === 0) return
      for (;;) {
        while (pumping || running.size > 0) {
          await Promise.allSettled([...running])
          if (pumping) await new Promise((resolve) => setTimeout(resolve, 5))
        }
        const { rows } = await db.query(
          `SELECT 1 FROM caption_jobs WHERE (state = 'queued' AND run_at <= now()) OR (state = 'running' AND locked_until < now()) LIMIT 1`,
        )
        if (rows.length === 0 && !pumping && running.size === 0) return
        wake()
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
  }
}

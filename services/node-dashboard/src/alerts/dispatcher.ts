import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '@app/common'
import { createAuditRepository } from '../audit/repository.ts'
import type { SecretBox } from '../settings/crypto.ts'
import { webhookBody } from './formats.ts'
import { createAlertsRepository, type DeliveryRow } from './repository.ts'
import { postWebhook, type WebhookLimits, type WebhookResult } from './webhook.ts'

export interface DeliveryPolicy extends WebhookLimits {
  /** Attempts per delivery, the first included. */
  attempts: number
  /** The first retry waits this long; each next one twice as long, at most MAX_BACKOFF_MS. */
  retryBaseMs: number
}

const MAX_BACKOFF_MS = 10 * 60_000
/** Deliveries one instance sends at once. */
const CONCURRENCY = 4
/** Finished deliveries kept for the screen and the API. */
const KEEP_DELIVERIES = 1000

export const backoffMs = (policy: DeliveryPolicy, attempt: number) =>
  Math.min(policy.retryBaseMs * 2 ** (attempt - 1), MAX_BACKOFF_MS)

/** A failure worth another attempt: no answer, a timeout, 408, 429 or a server error. */
export const retryable = (result: WebhookResult) =>
  !result.ok && (result.status === null || result.status === 408 || result.status === 429 || result.status >= 500)

export const attemptText = (result: WebhookResult) =>
  result.status !== null ? `HTTP ${result.status}` : (result.error ?? 'failed')

interface DispatcherOptions {
  db: Database
  box: SecretBox
  policy: DeliveryPolicy
  log: { warn: (obj: unknown, msg?: string) => void }
  intervalMs?: number
}

/**
 * Sends queued deliveries on its own timer, never in the sampler's round. Every instance runs one; a
 * claim (claimed_until, FOR UPDATE SKIP LOCKED) gives each delivery to one of them, and a claim left
 * by an instance that died runs out so another retries it.
 */
/** How long close waits for a claim loop (each query is bounded only by the database). */
const STOP_WAIT_MS = 3000

export function createDispatcher(options: DispatcherOptions) {
  const repo = createAlertsRepository(options.db)
  const { policy } = options
  const claimSeconds = Math.ceil((policy.timeoutMs + policy.connectTimeoutMs) / 1000) + 30
  const running = new Set<Promise<void>>()
  let timer: NodeJS.Timeout | null = null
  let current: Promise<void> | null = null
  let again = false
  let ticks = 0
  let stopped = false

  async function deliver(d: DeliveryRow): Promise<void> {
    const target = await repo.target(d.target_id)
    const attempt = d.attempts + 1
    const url = target ? options.box.decrypt(target.url_enc) : null
    let result: WebhookResult
    if (!target) result = { ok: false, status: null, error: 'target deleted', durationMs: 0 }
    else if (url === null)
      result = { ok: false, status: null, error: 'URL cannot be decrypted (SESSION_SECRET changed)', durationMs: 0 }
    else result = await postWebhook(url, webhookBody(target.format, d.notification), policy)
    const again = target !== null && url !== null && retryable(result) && attempt < policy.attempts
    const retryInMs = again ? backoffMs(policy, attempt) : 0
    // The attempt and its audit row commit together: no reader sees one without the other.
    await options.db.transaction(async (tx) => {
      await createAlertsRepository(tx).recordAttempt(d.id, {
        state: result.ok ? 'delivered' : again ? 'pending' : 'failed',
        status: result.status,
        error: result.error,
        retryInMs,
      })
      await createAuditRepository(tx).record({
        username: null,
        kind: 'alert',
        name: 'webhook',
        ok: result.ok,
        outcome:
          `delivery ${d.id} (${d.event}) to target ${d.target_id}${target ? ` (${target.format})` : ''}: ` +
          `attempt ${attempt}/${policy.attempts}, ${attemptText(result)}${again ? `, retry in ${retryInMs} ms` : ''}`,
      })
    })
  }

  async function claimAndSend(): Promise<void> {
    try {
      do {
        again = false
        const free = CONCURRENCY - running.size
        if (free <= 0) break
        for (const d of await repo.claimDue(free, claimSeconds)) {
          const job: Promise<void> = deliver(d)
            .catch((error) => options.log.warn({ err: error, delivery: d.id }, 'alert delivery failed'))
            .finally(() => {
              running.delete(job)
              void tick()
            })
          running.add(job)
        }
      } while (again && !stopped)
      ticks += 1
      if (ticks % 300 === 0) await repo.pruneDeliveries(KEEP_DELIVERIES)
    } catch (error) {
      options.log.warn({ err: error }, 'alert dispatcher tick failed')
    }
  }

  /** One claim loop at a time; a call during it makes it look again. */
  function tick(): Promise<void> {
    if (stopped) return Promise.resolve()
    if (current) {
      again = true
      return current
    }
    current = claimAndSend().finally(() => {
      current = null
    })
    return current
  }

  return {
    /** Looks for due deliveries now (after new ones were queued). */
    kick(): void {
      void tick()
    },
    start(): void {
      if (timer || stopped) return
      timer = setInterval(() => void tick(), options.intervalMs ?? 1000)
      timer.unref()
    },
    /** Stops claiming; waits for the attempts in flight (each bounded by the webhook timeout). */
    async stop(): Promise<void> {
      stopped = true
      if (timer) clearInterval(timer)
      timer = null
      // A claim loop stuck on a database that stopped answering must not hold the shutdown forever.
      await Promise.race([current, sleep(STOP_WAIT_MS, undefined, { ref: false })])
      await Promise.allSettled([...running])
    },
  }
}

export type Dispatcher = ReturnType<typeof createDispatcher>

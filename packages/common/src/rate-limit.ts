import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Redis } from 'ioredis'
import { tooManyRequests } from './errors.ts'

export interface RateLimitState {
  limit: number
  remaining: number
  /** ISO 8601 UTC date-time at which the current window ends. */
  resetAt: string
}

export interface RateLimitStore {
  /** Counts one hit in the window ending at `resetMs` and returns the count so far. */
  increment(key: string, resetMs: number): Promise<number>
  close(): Promise<void>
}

/** Counts in this process; windows are fixed and aligned to the epoch, so every instance agrees on resetAt. */
export function memoryStore(): RateLimitStore {
  const counts = new Map<string, { count: number; resetMs: number }>()
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const [key, entry] of counts) if (entry.resetMs <= now) counts.delete(key)
  }, 60_000)
  sweep.unref()
  return {
    async increment(key, resetMs) {
      const id = `${key}:${resetMs}`
      const entry = counts.get(id)
      if (entry) return ++entry.count
      counts.set(id, { count: 1, resetMs })
      return 1
    },
    async close() {
      clearInterval(sweep)
      counts.clear()
    },
  }
}

/** Counts in Redis so several instances share one budget per client. */
export function redisStore(url: string): RateLimitStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 1000 })
  redis.on('error', () => {}) // reported per call by increment()
  return {
    async increment(key, resetMs) {
      const id = `ratelimit:${key}:${resetMs}`
      // A request never waits on an unreachable Redis for more than this.
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('Redis did not answer within 500 ms')), 500)
      })
      try {
        const replies = await Promise.race([
          redis
            .multi()
            .incr(id)
            .pexpireat(id, resetMs + 1000)
            .exec(),
          timeout,
        ])
        const [incrError, count] = replies?.[0] ?? [new Error('no reply from Redis')]
        if (incrError) throw incrError
        return Number(count)
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      redis.disconnect()
    },
  }
}

export interface RouteRateLimit {
  /** Budget name: routes with the same bucket share one count per client. */
  bucket: string
  max: number
  windowSeconds: number
}

export interface RateLimiter {
  consume(rule: RouteRateLimit, client: string): Promise<{ allowed: boolean; state: RateLimitState; retryAfterSeconds: number }>
  close(): Promise<void>
}

export function createRateLimiter(store: RateLimitStore, log?: { warn: (o: unknown, m?: string) => void }): RateLimiter {
  return {
    async consume({ bucket, max, windowSeconds }, client) {
      const now = Date.now()
      const windowMs = windowSeconds * 1000
      const resetMs = (Math.floor(now / windowMs) + 1) * windowMs
      let count: number
      try {
        count = await store.increment(`${bucket}:${client}`, resetMs)
      } catch (error) {
        // A broken shared store must not take the service down: allow and say so in the log.
        log?.warn({ err: error }, 'rate-limit store unavailable; request allowed')
        count = 1
      }
      const state = { limit: max, remaining: Math.max(0, max - count), resetAt: new Date(resetMs).toISOString() }
      return { allowed: count <= max, state, retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)) }
    },
    close: () => store.close(),
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter
  }
  interface FastifyRequest {
    /** The state of the route's rate limit after this request was counted; null on unlimited routes. */
    rateLimit: RateLimitState | null
  }
  interface FastifyContextConfig {
    rateLimit?: RouteRateLimit
  }
}

export function setRateLimitHeaders(reply: { header: (k: string, v: string | number) => unknown }, state: RateLimitState) {
  reply.header('RateLimit-Limit', state.limit)
  reply.header('RateLimit-Remaining', state.remaining)
  reply.header('RateLimit-Reset', state.resetAt)
}

export interface RateLimitPluginOptions {
  redisUrl?: string
  message?: (state: RateLimitState, retryAfterSeconds: number) => string
}

/**
 * Limits every route whose `config.rateLimit` names a budget: sets the RateLimit-* headers,
 * exposes the state as `request.rateLimit`, and answers 429 with Retry-After when it is spent.
 */
export const rateLimitPlugin = fp(
  async function rateLimitPlugin(fastify: FastifyInstance, options: RateLimitPluginOptions) {
    const limiter = createRateLimiter(options.redisUrl ? redisStore(options.redisUrl) : memoryStore(), fastify.log)
    fastify.decorate('rateLimiter', limiter)
    fastify.decorateRequest('rateLimit', null)
    fastify.addHook('onClose', () => limiter.close())
    const message = options.message ?? ((_s: RateLimitState, retry: number) => `Rate limit exceeded; retry in ${retry} seconds.`)
    fastify.addHook('onRoute', (route) => {
      const rule = route.config?.rateLimit
      if (!rule) return
      const hook = async (request: FastifyRequest, reply: { header: (k: string, v: string | number) => unknown }) => {
        const { allowed, state, retryAfterSeconds } = await limiter.consume(rule, request.ip)
        request.rateLimit = state
        setRateLimitHeaders(reply, state)
        if (!allowed) throw tooManyRequests(message(state, retryAfterSeconds), retryAfterSeconds)
      }
      const existing = route.onRequest
      route.onRequest = existing ? [...(Array.isArray(existing) ? existing : [existing]), hook] : [hook]
    })
  },
  { name: 'app-rate-limit', fastify: '5.x' },
)

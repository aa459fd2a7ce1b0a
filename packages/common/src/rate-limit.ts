import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import ipaddr from 'ipaddr.js'
import { tooManyRequests } from './errors.ts'
import { type Checker, type Counting, registerCounting } from './rate-limit-counting.ts'

export interface RateLimitState {
  limit: number
  remaining: number
  /** ISO 8601 UTC date-time at which the current window ends. */
  resetAt: string
}

export interface RouteRateLimit {
  /** Budget name: routes with the same bucket share one count per client (and must agree on max and window). */
  bucket: string
  max: number
  windowSeconds: number
}

export interface RateLimiter {
  consume(rule: RouteRateLimit, client: string): Promise<{ allowed: boolean; state: RateLimitState; retryAfterSeconds: number }>
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter
    /**
     * What a limited route's onRequest hook does: counts the request, sets `request.rateLimit` and the RateLimit-*
     * headers, and throws the 429 when the budget is spent. For a hook that answers before the route's own hooks.
     */
    enforceRateLimit(rule: RouteRateLimit, request: FastifyRequest, reply: RateLimitReply): Promise<void>
  }
  interface FastifyRequest {
    /** The state of the route's rate limit after this request was counted; null on unlimited routes. */
    rateLimit: RateLimitState | null
  }
  interface FastifyContextConfig {
    rateLimit?: RouteRateLimit
  }
}

/** Per bucket, the in-process store keeps the most recently seen clients up to this many (a bounded LRU). */
const CLIENTS_PER_BUCKET = 20_000

interface Budget {
  rule: RouteRateLimit
  check: Checker
  /** The current window's end, and as a date-time (made once per window). */
  resetMs: number
  resetAt: string
}

/**
 * Budgets counted by @fastify/rate-limit. Windows are fixed and aligned to the epoch: the window's end is part of
 * the counted key, so every hit of a window, on every instance, reports the same `resetAt`.
 */
function createRateLimiter(
  counting: Counting,
  log: { warn: (o: unknown, m?: string) => void },
): RateLimiter & { prepare(rule: RouteRateLimit): void } {
  const budgets = new Map<string, Budget>()
  const budgetOf = (rule: RouteRateLimit) => {
    const known = budgets.get(rule.bucket)
    if (known) {
      if (known.rule.max !== rule.max || known.rule.windowSeconds !== rule.windowSeconds) {
        throw new Error(`rate-limit bucket "${rule.bucket}" is used with two different budgets`)
      }
      return known
    }
    // Each key lives one window from its first hit, which always covers the rest of its aligned window.
    const check = counting.createChecker({
      max: rule.max,
      timeWindow: rule.windowSeconds * 1000,
      cache: CLIENTS_PER_BUCKET,
      keyGenerator: (counted) => counted.key,
    })
    const budget = { rule: { ...rule }, check, resetMs: 0, resetAt: '' }
    budgets.set(rule.bucket, budget)
    return budget
  }
  return {
    prepare: budgetOf,
    async consume(rule, client) {
      const budget = budgetOf(rule)
      const windowMs = rule.windowSeconds * 1000
      const resetMs = (Math.floor(Date.now() / windowMs) + 1) * windowMs
      if (resetMs !== budget.resetMs) {
        budget.resetMs = resetMs
        budget.resetAt = new Date(resetMs).toISOString()
      }
      const { resetAt } = budget
      const result = await budget.check({ routeOptions: {}, key: `${rule.bucket}:${rateLimitClient(client)}:${resetMs}` })
      let remaining = result.remaining ?? rule.max
      // Every call counts one hit: a full budget without time left is skipOnError letting a failed store through.
      if (remaining === rule.max && !result.ttl) {
        log.warn({ err: counting.lastError() }, 'rate-limit store unavailable; request allowed')
        remaining = Math.max(0, rule.max - 1)
      }
      const state = { limit: rule.max, remaining, resetAt }
      const retryAfterSeconds = Math.max(1, Math.ceil((resetMs - Date.now()) / 1000))
      return { allowed: !result.isExceeded, state, retryAfterSeconds }
    },
  }
}

/**
 * The client a budget counts: an IPv6 address by its /64 network (one home or host usually holds a whole /64, so
 * counting single addresses would hand it 2^64 budgets), an IPv4-mapped address as the IPv4 address.
 */
export function rateLimitClient(ip: string): string {
  if (!ipaddr.IPv6.isValid(ip)) return ip
  const address = ipaddr.IPv6.parse(ip)
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString()
  return `${address.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`
}

export type Consumed = Awaited<ReturnType<RateLimiter['consume']>>

const countedBeforeRouting = Symbol('rate limit counted before routing')
type CountedMessage = IncomingMessage & { [countedBeforeRouting]?: { bucket: string; consumed: Consumed } }

/**
 * For a pre-router path that counted a request and then passes it to Fastify (to let the route answer its 429): the
 * route's rate-limit hook takes this count instead of counting the request a second time.
 */
export function passCounted(raw: IncomingMessage, bucket: string, consumed: Consumed): void {
  ;(raw as CountedMessage)[countedBeforeRouting] = { bucket, consumed }
}

function takeCounted(raw: IncomingMessage, bucket: string): Consumed | undefined {
  const counted = (raw as CountedMessage)[countedBeforeRouting]
  if (counted?.bucket !== bucket) return undefined
  ;(raw as CountedMessage)[countedBeforeRouting] = undefined
  return counted.consumed
}

export function setRateLimitHeaders(reply: { header: (k: string, v: string | number) => unknown }, state: RateLimitState) {
  reply.header('RateLimit-Limit', state.limit)
  reply.header('RateLimit-Remaining', state.remaining)
  reply.header('RateLimit-Reset', state.resetAt)
}

type RateLimitReply = { header: (k: string, v: string | number) => unknown }

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
    const limiter = createRateLimiter(await registerCounting(fastify, options.redisUrl), fastify.log)
    fastify.decorate('rateLimiter', limiter)
    fastify.decorateRequest('rateLimit', null)
    const message = options.message ?? ((_s: RateLimitState, retry: number) => `Rate limit exceeded; retry in ${retry} seconds.`)
    const enforce = async (rule: RouteRateLimit, request: FastifyRequest, reply: RateLimitReply) => {
      const { allowed, state, retryAfterSeconds } =
        takeCounted(request.raw, rule.bucket) ?? (await limiter.consume(rule, request.ip))
      request.rateLimit = state
      setRateLimitHeaders(reply, state)
      if (!allowed) throw tooManyRequests(message(state, retryAfterSeconds), retryAfterSeconds)
    }
    fastify.decorate('enforceRateLimit', enforce)
    fastify.addHook('onRoute', (route) => {
      const rule = route.config?.rateLimit
      if (!rule) return
      // A bucket used with two different budgets fails here, at start-up.
      limiter.prepare(rule)
      const hook = (request: FastifyRequest, reply: RateLimitReply) => enforce(rule, request, reply)
      const existing = route.onRequest
      route.onRequest = existing ? [...(Array.isArray(existing) ? existing : [existing]), hook] : [hook]
    })
  },
  { name: 'app-rate-limit', fastify: '5.x' },
)

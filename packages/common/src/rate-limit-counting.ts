import { createRequire } from 'node:module'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { Redis } from 'ioredis'

const require = createRequire(import.meta.url)
// Loaded without its type declarations: they claim `config.rateLimit` for the plugin's own route options.
const fastifyRateLimit = require('@fastify/rate-limit') as FastifyPluginAsync<Record<string, unknown>>

type StoreCallback = (error: Error | null, hit?: { current: number; ttl: number }) => void
interface Store {
  incr(key: string, done: StoreCallback, timeWindow: number, max: number): void
  child(params: StoreParams): Store
}
interface StoreParams {
  continueExceeding?: boolean
  exponentialBackoff?: boolean
  cache?: number
}
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as new (
  continueExceeding?: boolean,
  exponentialBackoff?: boolean,
  cache?: number,
) => Store

/**
 * The plugin's in-process store, answering each hit with a copy: it hands out the stored entry, which the plugin
 * reads only after an await, so hits in the same tick would all see the last one's count.
 */
class SnapshotLocalStore implements Store {
  private readonly store: Store
  constructor(params: StoreParams) {
    this.store = new LocalStore(params.continueExceeding, params.exponentialBackoff, params.cache)
  }
  incr(key: string, done: StoreCallback, timeWindow: number, max: number) {
    this.store.incr(key, (error, hit) => done(error, hit && { current: hit.current, ttl: hit.ttl }), timeWindow, max)
  }
  child(params: StoreParams) {
    return new SnapshotLocalStore(params)
  }
}

const RedisStore = require('@fastify/rate-limit/store/RedisStore') as new (
  continueExceeding: boolean | undefined,
  exponentialBackoff: boolean | undefined,
  redis: Redis,
  key: string,
) => Store

/**
 * The plugin's Redis store under one plain `ratelimit:` prefix. Its own child() prefixes the route's method and URL,
 * which a budget made outside any route lacks ("ratelimit:undefinedundefined-..."); our keys name the budget already.
 */
function redisStoreOn(redis: Redis) {
  return class RedisBudgetStore implements Store {
    private readonly store: Store
    constructor(params: StoreParams) {
      this.store = new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, 'ratelimit:')
    }
    incr(key: string, done: StoreCallback, timeWindow: number, max: number) {
      this.store.incr(key, done, timeWindow, max)
    }
    child(params: StoreParams) {
      return new RedisBudgetStore(params)
    }
  }
}

/** Counts one hit under `key`; a store that failed is skipped (skipOnError): remaining = max and ttl = 0. */
export type Checker = (counted: {
  routeOptions: object
  key: string
}) => Promise<{ isAllowed: boolean; remaining?: number; ttl?: number; isExceeded?: boolean }>

export interface CheckerOptions {
  max: number
  timeWindow: number
  /** How many keys the in-process store keeps (least recently used go first). */
  cache: number
  keyGenerator: (counted: { key: string }) => string
}

export interface Counting {
  /** One checker per budget: each has its own in-process store. */
  createChecker(options: CheckerOptions): Checker
  /** The last error of the Redis connection, for the log. */
  lastError(): unknown
}

/** A dead Redis answers within this (connect, command) instead of holding requests. */
const REDIS_TIMEOUT_MS = 500

/** A Redis client that fails fast when Redis is gone, remembering the last connection error. */
async function connectRedis(url: string): Promise<{ redis: Redis; lastError: () => unknown }> {
  const redis = new Redis(url, {
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    // While disconnected a count fails at once (and the request is allowed) instead of queueing.
    enableOfflineQueue: false,
  })
  let lastError: unknown
  redis.on('error', (error) => {
    lastError = error
  })
  // Start counting on a ready connection; a Redis that is down at start-up delays the start by at most ~1 s.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, 2 * REDIS_TIMEOUT_MS)
    function done() {
      clearTimeout(timer)
      redis.off('ready', done).off('error', done)
      resolve()
    }
    redis.once('ready', done).once('error', done)
  })
  return { redis, lastError: () => lastError }
}

/** Registers @fastify/rate-limit for counting only (in Redis when `redisUrl` is set): no hooks, no headers. */
export async function registerCounting(fastify: FastifyInstance, redisUrl?: string): Promise<Counting> {
  const shared = redisUrl ? await connectRedis(redisUrl) : undefined
  if (shared) fastify.addHook('onClose', async () => shared.redis.disconnect())
  let createChecker: Counting['createChecker'] | undefined
  // In a scope of its own: even with global: false, its onRoute hook would claim every route's `config.rateLimit`.
  await fastify.register(async function rateLimitCounting(scope) {
    await scope.register(fastifyRateLimit, {
      global: false,
      skipOnError: true,
      store: shared ? redisStoreOn(shared.redis) : SnapshotLocalStore,
    })
    createChecker = (scope as unknown as { createRateLimit: Counting['createChecker'] }).createRateLimit
  })
  if (!createChecker) throw new Error('@fastify/rate-limit did not provide createRateLimit')
  return { createChecker, lastError: shared?.lastError ?? (() => undefined) }
}

import Fastify from 'fastify'
import { test } from 'tap'
import { createErrorHandler } from '../src/errors.ts'
import { rateLimitPlugin } from '../src/rate-limit.ts'
import { redisReachable } from '../src/testing.ts'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

async function build(options: { redisUrl?: string; windowSeconds?: number } = {}) {
  const fastify = Fastify()
  fastify.setErrorHandler(createErrorHandler({ messageKey: 'error', validationStatus: 400 }))
  await fastify.register(rateLimitPlugin, { redisUrl: options.redisUrl })
  const windowSeconds = options.windowSeconds ?? 60
  fastify.get(
    '/read',
    { config: { rateLimit: { bucket: `read-${windowSeconds}`, max: 3, windowSeconds } } },
    async (request) => ({
      rateLimit: request.rateLimit,
    }),
  )
  fastify.get('/media', { config: { rateLimit: { bucket: 'media', max: 1, windowSeconds } } }, async () => 'ok')
  fastify.get('/free', async (request) => ({ rateLimit: request.rateLimit }))
  await fastify.ready()
  return fastify
}

test('headers on every limited response equal the state handed to the handler', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const remaining of [2, 1, 0]) {
    const res = await app.inject('/read')
    t.equal(res.statusCode, 200)
    const { rateLimit } = res.json()
    t.same(rateLimit.remaining, remaining)
    t.equal(res.headers['ratelimit-limit'], '3')
    t.equal(res.headers['ratelimit-remaining'], String(remaining))
    t.equal(res.headers['ratelimit-reset'], rateLimit.resetAt)
    t.match(rateLimit.resetAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ISO 8601 UTC')
    t.ok(Date.parse(rateLimit.resetAt) > Date.now(), 'reset lies ahead')
  }
  const limited = await app.inject('/read')
  t.equal(limited.statusCode, 429)
  t.match(limited.json(), { error: /Rate limit exceeded/ })
  const retryAfter = Number(limited.headers['retry-after'])
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
  t.equal(limited.headers['ratelimit-remaining'], '0')

  const other = await app.inject('/media')
  t.equal(other.statusCode, 200, 'another bucket has its own budget')
  const free = await app.inject('/free')
  t.same(free.json(), { rateLimit: null })
  t.notOk(free.headers['ratelimit-limit'], 'unlimited routes carry no headers')
})

test('clients are counted apart by IP', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (let i = 0; i < 3; i++) await app.inject({ url: '/read', remoteAddress: '10.0.0.1' })
  t.equal((await app.inject({ url: '/read', remoteAddress: '10.0.0.1' })).statusCode, 429)
  t.equal((await app.inject({ url: '/read', remoteAddress: '10.0.0.2' })).statusCode, 200)
})

test('a new window restores the budget', async (t) => {
  const app = await build({ windowSeconds: 1 })
  t.teardown(() => app.close())
  let res = await app.inject('/read')
  // Start right after a window boundary so three hits fit in one window.
  await new Promise((r) => setTimeout(r, Date.parse(res.json().rateLimit.resetAt) - Date.now() + 10))
  for (let i = 0; i < 3; i++) await app.inject('/read')
  res = await app.inject('/read')
  t.equal(res.statusCode, 429)
  await new Promise((r) => setTimeout(r, Number(res.headers['retry-after']) * 1000 + 50))
  t.equal((await app.inject('/read')).statusCode, 200)
})

const redisUp = await redisReachable(REDIS_URL)
if (!redisUp) console.log(`# NOTICE: Redis not reachable at ${REDIS_URL}; the shared-store test is skipped`)

test('with Redis, two instances share one count', {
  skip: redisUp ? false : `Redis not reachable at ${REDIS_URL}`,
}, async (t) => {
  // A unique client address keeps runs and parallel tests apart in the shared server.
  const remoteAddress = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`
  const [a, b] = [await build({ redisUrl: REDIS_URL }), await build({ redisUrl: REDIS_URL })]
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  t.equal((await a.inject({ url: '/read', remoteAddress })).json().rateLimit.remaining, 2)
  t.equal((await b.inject({ url: '/read', remoteAddress })).json().rateLimit.remaining, 1)
  t.equal((await a.inject({ url: '/read', remoteAddress })).json().rateLimit.remaining, 0)
  const limited = await b.inject({ url: '/read', remoteAddress })
  t.equal(limited.statusCode, 429, 'the second instance sees the first one’s hits')
  t.ok(Number(limited.headers['retry-after']) >= 1)
})

test('a broken Redis does not take the service down', async (t) => {
  const app = await build({ redisUrl: 'redis://127.0.0.1:1' })
  t.teardown(() => app.close())
  const res = await app.inject('/read')
  t.equal(res.statusCode, 200, 'allowed, and logged as a warning')
})

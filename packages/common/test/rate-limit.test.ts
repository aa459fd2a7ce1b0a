import net from 'node:net'
import { Writable } from 'node:stream'
import { redisReachable } from '@app/testing'
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import { type Test, test } from 'tap'
import { createErrorHandler } from '../src/errors.ts'
import { rateLimitPlugin } from '../src/rate-limit.ts'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** `logs` collects the warnings (and worse) the app logs. */
async function build(options: { redisUrl?: string; windowSeconds?: number; logs?: { level: number; msg: string }[] } = {}) {
  const { logs } = options
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs?.push(JSON.parse(line))
      done()
    },
  })
  const fastify = Fastify(logs ? { logger: { level: 'warn', stream } } : {})
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

test('IPv6 clients are counted by their /64 network, IPv4-mapped addresses as IPv4', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  // One home or server usually gets a whole /64: counting single addresses would give it 2^64 budgets.
  for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:ffff']) {
    t.equal((await app.inject({ url: '/read', remoteAddress: address })).statusCode, 200, address)
  }
  t.equal((await app.inject({ url: '/read', remoteAddress: '2001:db8:1:2:abcd::9' })).statusCode, 429, 'same /64')
  t.equal((await app.inject({ url: '/read', remoteAddress: '2001:db8:1:3::1' })).statusCode, 200, 'next /64')
  for (let i = 0; i < 3; i++) await app.inject({ url: '/read', remoteAddress: '10.9.9.9' })
  t.equal((await app.inject({ url: '/read', remoteAddress: '::ffff:10.9.9.9' })).statusCode, 429, 'mapped IPv4')
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

test('with Redis, a count is stored as ratelimit:<bucket>:<client>:<window end>, expiring with its window', {
  skip: redisUp ? false : `Redis not reachable at ${REDIS_URL}`,
}, async (t) => {
  const remoteAddress = `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`
  const app = await build({ redisUrl: REDIS_URL })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/read', remoteAddress })
  const windowEnd = Date.parse(res.json().rateLimit.resetAt)
  const redis = new Redis(REDIS_URL)
  t.teardown(() => redis.disconnect())
  const key = `ratelimit:read-60:${remoteAddress}:${windowEnd}`
  t.equal(await redis.get(key), '1', key)
  const ttl = await redis.pttl(key)
  t.ok(ttl > 0 && ttl <= 60_000, `expires with its window (${ttl} ms)`)
  t.same(await redis.keys(`ratelimit:*undefined*${remoteAddress}*`), [], 'no key carries a missing route name')
})

test('a broken Redis does not take the service down', async (t) => {
  const app = await build({ redisUrl: 'redis://127.0.0.1:1' })
  t.teardown(() => app.close())
  const res = await app.inject('/read')
  t.equal(res.statusCode, 200, 'allowed, and logged as a warning')
})

test('no headers or counting of the underlying plugin on limited routes', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await app.inject('/read')
  t.equal(res.json().rateLimit.remaining, 2, 'one hit counted once')
  t.same(
    Object.keys(res.headers).filter((name) => name.startsWith('x-ratelimit')),
    [],
    'no X-RateLimit-* headers',
  )
})

test('consume() charges the same budget as the routes, also when called concurrently', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const rule = { bucket: 'read-60', max: 3, windowSeconds: 60 }
  const charges = await Promise.all([app.rateLimiter.consume(rule, '10.0.0.7'), app.rateLimiter.consume(rule, '10.0.0.7')])
  t.same(charges.map((c) => c.state.remaining).sort(), [1, 2], 'both charges counted')
  t.ok(charges.every((c) => c.allowed))
  const last = await app.inject({ url: '/read', remoteAddress: '10.0.0.7' })
  t.equal(last.json().rateLimit.remaining, 0)
  t.equal(last.json().rateLimit.resetAt, charges[0].state.resetAt, 'one window')
  const refused = await app.rateLimiter.consume(rule, '10.0.0.7')
  t.equal(refused.allowed, false)
  t.ok(refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60)
  t.equal((await app.inject({ url: '/read', remoteAddress: '10.0.0.7' })).statusCode, 429)
})

test('one bucket used with two different budgets fails at start-up', async (t) => {
  const fastify = Fastify()
  t.teardown(() => fastify.close())
  await fastify.register(rateLimitPlugin, {})
  await t.rejects(async () => {
    fastify.get('/a', { config: { rateLimit: { bucket: 'shared', max: 3, windowSeconds: 60 } } }, async () => 'a')
    fastify.get('/b', { config: { rateLimit: { bucket: 'shared', max: 4, windowSeconds: 60 } } }, async () => 'b')
    await fastify.ready()
  }, /two different budgets/)
})

/** Windows are aligned to the minute: start in a fresh one if this one ends soon, so all hits of a test share it. */
async function minuteWithTimeLeft() {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50))
}

test('the in-process count remembers more clients per budget than the plugin keeps by default (5000)', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const rule = { bucket: 'read-60', max: 3, windowSeconds: 60 }
  await minuteWithTimeLeft()
  await app.rateLimiter.consume(rule, '10.1.0.0')
  for (let i = 1; i <= 6000; i++) await app.rateLimiter.consume(rule, `10.2.${i >> 8}.${i & 255}`)
  t.equal((await app.rateLimiter.consume(rule, '10.1.0.0')).state.remaining, 1, 'the first client’s hit still counts')
})

test('with Redis, every hit of a window on either instance reports the same reset', {
  skip: redisUp ? false : `Redis not reachable at ${REDIS_URL}`,
}, async (t) => {
  const remoteAddress = `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`
  const [a, b] = [await build({ redisUrl: REDIS_URL }), await build({ redisUrl: REDIS_URL })]
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  await minuteWithTimeLeft()
  const resets = new Set<string>()
  for (const app of [a, b, a]) {
    const res = await app.inject({ url: '/read', remoteAddress })
    resets.add(res.json().rateLimit.resetAt)
    resets.add(String(res.headers['ratelimit-reset']))
  }
  const limited = await b.inject({ url: '/read', remoteAddress })
  t.equal(limited.statusCode, 429)
  resets.add(String(limited.headers['ratelimit-reset']))
  t.equal(resets.size, 1, `one reset: ${[...resets].join(', ')}`)
  const [resetAt] = resets
  t.equal(Date.parse(resetAt) % 60_000, 0, 'the window ends on a whole minute')
})

test('a broken Redis: allowed as one hit of a fresh window, with a warning in the log', async (t) => {
  const logs: { level: number; msg: string }[] = []
  const app = await build({ redisUrl: 'redis://127.0.0.1:1', logs })
  t.teardown(() => app.close())
  for (let i = 0; i < 5; i++) {
    const res = await app.inject('/read')
    t.equal(res.statusCode, 200, `request ${i + 1} allowed`)
    t.equal(res.json().rateLimit.remaining, 2)
    t.equal(res.headers['ratelimit-reset'], res.json().rateLimit.resetAt)
    t.ok(Date.parse(res.json().rateLimit.resetAt) > Date.now(), 'reset lies ahead')
  }
  const warnings = logs.filter((line) => line.level === 40 && /rate-limit store unavailable/.test(line.msg))
  t.equal(warnings.length, 5, 'one warning per request let through')
})

/** A Redis stand-in that completes the client's handshake, then never answers again. */
async function hungRedis(t: Test): Promise<string> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    let ready = false
    socket.on('data', (chunk) => {
      for (const command of String(chunk).split(/(?=\*\d+\r\n)/)) {
        if (ready || !command) continue
        ready = /\r\ninfo\r\n/i.test(command)
        socket.write(ready ? '$9\r\nloading:0\r\n' : '+OK\r\n')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`
}

test('a Redis that stops answering: the request is allowed after a bounded wait, with a warning', async (t) => {
  const logs: { level: number; msg: string }[] = []
  const app = await build({ redisUrl: await hungRedis(t), logs })
  t.teardown(() => app.close())
  const res = await app.inject('/read')
  t.equal(res.statusCode, 200, 'allowed')
  t.equal(res.json().rateLimit.remaining, 2)
  t.ok(
    logs.some((line) => line.level === 40 && /rate-limit store unavailable/.test(line.msg)),
    'warned',
  )
})

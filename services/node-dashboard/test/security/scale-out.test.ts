import { redisReachable } from '@app/testing'
import { test } from 'tap'
import { build, TEST_PASSWORD } from '../helper.ts'

// Already proven elsewhere, not repeated here: sessions shared by instances and surviving a restart
// (test/auth/routes.test.ts "sessions live in PostgreSQL"), one sampler at a time (test/dashboard/summary.test.ts
// "one instance samples at a time"), one node action at a time across instances (test/actions/stop.test.ts),
// settings changes reaching the other instance (test/settings/routes.test.ts).

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

const redisUp = await redisReachable(REDIS_URL)
if (!redisUp) console.log(`# NOTICE: Redis not reachable at ${REDIS_URL}; the shared failure-count test is skipped`)

// A fresh client address per run: the Redis counts outlive the test (until their window ends).
const uniqueIp = () => `10.${100 + Math.floor(Math.random() * 150)}.${process.pid % 250}.${Math.floor(Math.random() * 250)}`
const MAX = 4
const env = { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES: String(MAX), LOGIN_FAILURE_WINDOW_SECONDS: '600' }

type App = Awaited<ReturnType<typeof build>>
const attempt = (app: App, ip: string, password: string) =>
  app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'x-forwarded-for': ip },
    payload: { username: 'admin', password },
  })

test('with one Redis, failed logins split across two instances add up to one limit', {
  skip: redisUp ? false : `Redis not reachable at ${REDIS_URL}`,
}, async (t) => {
  const a = await build(t, { env: { ...env, REDIS_URL } })
  const b = await build(t, { shareWith: a, env: { ...env, REDIS_URL } })
  const ip = uniqueIp()
  // Neither instance alone sees MAX failures: only a shared count can throttle.
  for (let i = 0; i < MAX; i++) {
    const res = await attempt(i % 2 === 0 ? a : b, ip, `wrong ${i}`)
    t.equal(res.statusCode, 401, `failure ${i + 1} on ${i % 2 === 0 ? 'A' : 'B'}`)
  }
  for (const [name, app] of [
    ['A', a],
    ['B', b],
  ] as const) {
    for (const password of ['wrong again', TEST_PASSWORD]) {
      const res = await attempt(app, ip, password)
      t.equal(res.statusCode, 429, `${name} refuses the ${password === TEST_PASSWORD ? 'right' : 'wrong'} password`)
      const retry = Number(res.headers['retry-after'])
      t.ok(retry >= 1 && retry <= 600, `${name}: Retry-After ${retry}`)
      t.notOk(res.headers['set-cookie'], `${name}: no session`)
    }
  }
  const other = uniqueIp()
  t.equal((await attempt(b, other, TEST_PASSWORD)).statusCode, 200, 'another client logs in on B')
  t.equal((await attempt(a, other, TEST_PASSWORD)).statusCode, 200, 'and on A')
})

test('with one Redis, failures below the limit on both instances do not block', {
  skip: redisUp ? false : `Redis not reachable at ${REDIS_URL}`,
}, async (t) => {
  const a = await build(t, { env: { ...env, REDIS_URL } })
  const b = await build(t, { shareWith: a, env: { ...env, REDIS_URL } })
  const ip = uniqueIp()
  for (let i = 0; i < MAX - 1; i++) t.equal((await attempt(i % 2 ? a : b, ip, 'wrong')).statusCode, 401)
  t.equal((await attempt(a, ip, TEST_PASSWORD)).statusCode, 200, 'one failure short of the limit still logs in')
})

test('a blocked client is refused by an instance started later (the block lives in the database)', async (t) => {
  // No Redis here: the block row alone must carry over, as on a fresh user machine.
  const a = await build(t, { env })
  const ip = uniqueIp()
  for (let i = 0; i < MAX; i++) t.equal((await attempt(a, ip, 'wrong')).statusCode, 401)
  t.equal((await attempt(a, ip, TEST_PASSWORD)).statusCode, 429)
  const b = await build(t, { shareWith: a, env })
  const res = await attempt(b, ip, TEST_PASSWORD)
  t.equal(res.statusCode, 429, 'B never saw a failure but refuses the right password')
  t.ok(Number(res.headers['retry-after']) >= 1)
  t.equal((await attempt(b, uniqueIp(), TEST_PASSWORD)).statusCode, 200, 'only that client')
})

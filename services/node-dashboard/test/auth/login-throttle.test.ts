import { randomBytes } from 'node:crypto'
import { redisReachable } from '@app/testing'
import t, { type Test } from 'tap'
import { build, TEST_PASSWORD } from '../helper.ts'

const MAX = 5
const env = { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES: String(MAX), LOGIN_FAILURE_WINDOW_SECONDS: '600' }
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const redisUp = await redisReachable(REDIS_URL)

type App = Awaited<ReturnType<typeof build>>

/** Counts the password checks (each one a full scrypt) by wrapping the credentials object the login route calls. */
function countChecks(app: App): { readonly count: number } {
  const counter = { count: 0 }
  const verify = app.credentials.verify.bind(app.credentials)
  app.credentials.verify = async (username, password) => {
    counter.count++
    return verify(username, password)
  }
  return counter
}

// A fresh client address per test: Redis counts outlive a run (until their window ends).
const uniqueIp = () => `10.${Math.floor(Math.random() * 250)}.${process.pid % 250}.${Math.floor(Math.random() * 250)}`
const attempt = (app: App, ip: string, password: string) =>
  app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'x-forwarded-for': ip },
    payload: { username: 'admin', password },
  })

/** 29 wrong guesses and the right password last, all sent at once. */
function burst(apps: App[], ip: string) {
  return Promise.all(
    Array.from({ length: 30 }, (_, i) => attempt(apps[i % apps.length], ip, i === 29 ? TEST_PASSWORD : `wrong guess ${i}`)),
  )
}

function checkBurst(t: Test, answers: Awaited<ReturnType<typeof burst>>, checks: number) {
  const statuses = answers.map((res) => res.statusCode)
  t.ok(
    statuses.every((status) => status === 401 || status === 429),
    `only 401 and 429: ${statuses.join(' ')}`,
  )
  t.ok(statuses.filter((status) => status === 401).length <= MAX, `at most ${MAX} answers are 401: ${statuses.join(' ')}`)
  t.not(statuses[29], 200, 'the right password inside the burst does not log in')
  t.ok(
    answers.every((res) => !res.cookies.some((c) => c.name === 'dashboard_session' && c.value !== '')),
    'no session issued',
  )
  t.ok(checks <= MAX + 1, `scrypt ran ${checks} times (at most ${MAX + 1})`)
  for (const res of answers.filter((r) => r.statusCode === 429)) {
    const retry = Number(res.headers['retry-after'])
    t.ok(retry >= 1 && retry <= 600, `Retry-After ${retry}`)
  }
}

const { test } = t

test('30 concurrent logins from one IP: the failure budget holds and the right password in the burst is refused', async (t) => {
  const app = await build(t, { env })
  const checks = countChecks(app)
  checkBurst(t, await burst([app], uniqueIp()), checks.count)
})

test('only failures count: successful logins never lock the user out', async (t) => {
  const app = await build(t, { env })
  const ip = uniqueIp()
  for (let i = 0; i < MAX + 2; i++) t.equal((await attempt(app, ip, TEST_PASSWORD)).statusCode, 200, `login ${i + 1}`)
  const together = await Promise.all([attempt(app, ip, TEST_PASSWORD), attempt(app, ip, TEST_PASSWORD)])
  t.same(
    together.map((res) => res.statusCode),
    [200, 200],
    'a double submit logs in twice',
  )
  for (let i = 0; i < MAX - 1; i++) t.equal((await attempt(app, ip, 'wrong')).statusCode, 401)
  t.equal((await attempt(app, ip, TEST_PASSWORD)).statusCode, 200, 'one failure short of the limit still logs in')
})

test('with one Redis and one database, a burst split across two instances keeps one budget', {
  skip: redisUp ? false : `Redis not reachable at ${REDIS_URL}`,
}, async (t) => {
  const a = await build(t, { env: { ...env, REDIS_URL } })
  const b = await build(t, { shareWith: a, env: { ...env, REDIS_URL } })
  const checksA = countChecks(a)
  const checksB = countChecks(b)
  const ip = uniqueIp()
  checkBurst(t, await burst([a, b], ip), checksA.count + checksB.count)
  t.equal((await attempt(b, ip, TEST_PASSWORD)).statusCode, 429, 'the client stays blocked')
  t.equal((await attempt(a, uniqueIp(), TEST_PASSWORD)).statusCode, 200, 'another client logs in')
})

test('a forwarded address of any length is blocked like a short one, never a 500', async (t) => {
  const app = await build(t, { env })
  // The client chooses X-Forwarded-For when the proxy is trusted: far longer than any index entry may be.
  // Random text: a repeated character would compress below the index limit.
  const ip = `${uniqueIp()}-${randomBytes(3000).toString('hex')}`
  const statuses: number[] = []
  for (let i = 0; i < MAX + 1; i++) statuses.push((await attempt(app, ip, `wrong-${i}`)).statusCode)
  t.same(statuses, [...Array(MAX).fill(401), 429])
  t.equal((await attempt(app, ip, TEST_PASSWORD)).statusCode, 429, 'the long address stays blocked')
})

test('guesses spread over the addresses of one IPv6 /64 share one budget and one block', async (t) => {
  const app = await build(t, { env })
  const network = `2001:db8:${(process.pid % 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`
  const statuses: number[] = []
  for (let i = 0; i < MAX + 1; i++) statuses.push((await attempt(app, `${network}::${i + 1}`, `wrong-${i}`)).statusCode)
  t.same(statuses, [...Array(MAX).fill(401), 429])
  t.equal((await attempt(app, `${network}:abcd::99`, TEST_PASSWORD)).statusCode, 429, 'a fresh address of the /64 is blocked')
  t.equal((await attempt(app, `2001:db8:ffff:ffff::1`, TEST_PASSWORD)).statusCode, 200, 'another network logs in')
})

import t from 'tap'
import { build, login, TEST_PASSWORD } from '../helper.ts'

// One default instance for the file; a second one only where a setting must differ.
const app = await build(t)
const { test } = t

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
interface Operation {
  method: Method
  url: string
}

// Concrete values for the path parameters the document names.
const PATH_VALUES: Record<string, string> = { window: '5m', method_name: 'getblockcount' }
const STATE_CHANGING = new Set(['POST', 'PUT', 'DELETE', 'PATCH'])
// The spec's Auth = No API routes, plus the document itself (GET / is a page: the document leaves it out) and
// readiness (a load balancer's probe carries no session).
const PUBLIC = ['GET /api/health', 'GET /api/ready', 'GET /api/auth/me', 'POST /api/auth/login', 'GET /openapi.json']

const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
const operations: (Operation & { secured: boolean; security: string })[] = Object.entries<
  Record<string, { security?: unknown[] }>
>(doc.paths).flatMap(([template, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    method: method.toUpperCase() as Method,
    url: template.replace(/\{(\w+)\}/g, (_, name: string) => PATH_VALUES[name] ?? 'x'),
    secured: JSON.stringify(op.security ?? []).includes('sessionCookie'),
    security: JSON.stringify(op.security ?? []),
  })),
)
const secured = operations.filter((o) => o.secured)
const name = (o: Operation) => `${o.method} ${o.url}`
const send = (o: Operation, headers: Record<string, string> = {}) =>
  app.inject({ method: o.method, url: o.url, headers, payload: o.method === 'GET' ? undefined : {} })

test('the document marks every route but the public ones as needing a session', async (t) => {
  t.ok(secured.length >= 12, `${secured.length} secured operations`)
  t.same(
    operations
      .filter((o) => o.security === '[]')
      .map(name)
      .sort(),
    [...PUBLIC].sort(),
    'nothing else is public',
  )
  // The one route without a session: Prometheus scrapes with the METRICS_TOKEN bearer token (test/prometheus/).
  t.same(
    operations.filter((o) => !o.secured && o.security !== '[]').map((o) => `${name(o)} ${o.security}`),
    ['GET /metrics [{"metricsToken":[]}]'],
  )
})

test('every secured route: 401 {detail} without a cookie, with a forged one and with an expired one', async (t) => {
  const real = await login(app)
  const [, value] = real.split('=')
  const sid = decodeURIComponent(value).split('.')[0]
  const forged = [
    'dashboard_session=forged.value',
    `dashboard_session=${sid}`, // the id without its signature
    `dashboard_session=${encodeURIComponent(`${sid}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`)}`, // a wrong signature
    `dashboard_session=${encodeURIComponent(`${'A'.repeat(sid.length)}.${decodeURIComponent(value).split('.')[1]}`)}`,
  ]
  // Expire every session in the store: the browser would still send the cookie.
  await app.db.query("UPDATE sessions SET expires_at = now() - interval '1 second'")
  for (const o of secured) {
    for (const [label, cookie] of [['no cookie', ''], ...forged.map((c, i) => [`forged #${i}`, c]), ['expired', real]]) {
      const res = await send(o, cookie ? { cookie } : {})
      t.equal(res.statusCode, 401, `${name(o)} ${label}`)
      t.same(Object.keys(res.json()), ['detail'], `${name(o)} ${label}: {detail}`)
      // @fastify/session clears a cookie it cannot use; it must never issue one.
      const set = [res.headers['set-cookie'] ?? []].flat()
      t.ok(
        set.every((c) => /^dashboard_session=;.*Max-Age=0/i.test(c)),
        `${name(o)} ${label}: no session issued`,
      )
    }
  }
})

test('every state change with a valid session: 403 for a foreign Origin or a foreign Referer, before the route runs', async (t) => {
  const cookie = await login(app)
  const host = 'dash.local:8081'
  const changes: Operation[] = [
    ...secured.filter((o) => STATE_CHANGING.has(o.method)),
    { method: 'POST', url: '/api/auth/login' },
  ]
  t.ok(changes.length >= 6)
  const before = await app.settingsCache.get()
  const audited = async () => (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log')).rows[0].n
  const auditBefore = await audited()
  const foreign: Record<string, string>[] = [
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { origin: 'http://dash.local:8081.evil.example' },
    { origin: 'https://dash.local:8081' }, // another scheme is another origin
    { referer: 'https://evil.example/dash.local:8081/' },
    { referer: 'http://evil.example/?next=http://dash.local:8081/' },
    { referer: 'not a url' },
  ]
  for (const o of changes) {
    for (const headers of foreign) {
      const res = await app.inject({
        method: o.method,
        url: o.url,
        headers: { cookie, host, ...headers },
        payload: o.url === '/api/auth/login' ? { username: 'admin', password: TEST_PASSWORD } : {},
      })
      t.equal(res.statusCode, 403, `${name(o)} ${JSON.stringify(headers)}`)
      t.match(res.json(), { detail: /Cross-origin/ }, `${name(o)}: {detail}`)
    }
  }
  t.same(await app.settingsCache.get(), before, 'no settings were written')
  t.equal(await audited(), auditBefore, 'no RPC call or action ran (nothing audited)')
  const actions = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM node_actions')
  t.equal(actions.rows[0].n, 0, 'no node action was recorded')
  const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })
  t.equal(me.json().authenticated, true, 'the refused logout left the session alive')

  // The documented rule: the own origin, or neither header (scripts), reaches the route.
  for (const o of changes.filter((c) => c.url !== '/api/auth/logout')) {
    for (const headers of [{ origin: `http://${host}` }, { referer: `http://${host}/settings` }, {}]) {
      const res = await app.inject({
        method: o.method,
        url: o.url,
        headers: { cookie, host, ...headers },
        payload: o.url === '/api/auth/login' ? { username: 'admin', password: TEST_PASSWORD } : {},
      })
      t.not(res.statusCode, 403, `${name(o)} ${JSON.stringify(headers)} is not refused as CSRF (${res.statusCode})`)
    }
  }
})

test('session cookie flags at login and logout; no other route sets a cookie', async (t) => {
  const flags = (header: string, secure: boolean) => {
    t.match(header, /; HttpOnly/i)
    t.match(header, /; SameSite=Lax/i)
    t.match(header, /; Path=\/(;|$)/)
    if (secure) t.match(header, /; Secure/i)
    else t.notMatch(header, /; Secure/i)
  }
  const plainLogin = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  const cookie = `dashboard_session=${plainLogin.cookies.find((c) => c.name === 'dashboard_session')!.value}`
  flags(String(plainLogin.headers['set-cookie']), false)
  t.match(String(plainLogin.headers['set-cookie']), /; Max-Age=28800(;|$)/)
  for (const o of secured.filter((s) => s.url !== '/api/auth/logout')) {
    const res = await send(o, { cookie })
    t.notOk(res.headers['set-cookie'], `${name(o)} does not (re)issue a cookie`)
  }
  const out = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } })
  flags(String(out.headers['set-cookie']), false)

  const secure = await build(t, { env: { SESSION_COOKIE_SECURE: 'true', TRUST_PROXY: 'true' } })
  const headers = { 'x-forwarded-proto': 'https' }
  const secureLogin = await secure.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers,
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  flags(String(secureLogin.headers['set-cookie']), true)
  t.match(String(secureLogin.headers['set-cookie']), /; Max-Age=28800(;|$)/)
  const secureCookie = `dashboard_session=${secureLogin.cookies.find((c) => c.name === 'dashboard_session')!.value}`
  const secureOut = await secure.inject({
    method: 'POST',
    url: '/api/auth/logout',
    headers: { ...headers, cookie: secureCookie },
  })
  flags(String(secureOut.headers['set-cookie']), true)
  t.match(String(secureOut.headers['set-cookie']), /Max-Age=0/, 'logout clears it')
})

test('login throttling per client IP, through a trusted proxy', async (t) => {
  const proxied = await build(t, {
    env: { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_SECONDS: '600' },
  })
  const ip = `10.77.${process.pid % 250}.${Math.floor(Math.random() * 250)}`
  const attempt = (username: string, password: string, from = ip) =>
    proxied.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'x-forwarded-for': from },
      payload: { username, password },
    })
  // Unknown user names count as failures too: guessing names is no way around the limit.
  t.equal((await attempt('root', 'x')).statusCode, 401)
  t.equal((await attempt('admin', 'y')).statusCode, 401)
  t.equal((await attempt('admin', 'z')).statusCode, 401)
  for (const password of ['w', TEST_PASSWORD]) {
    const res = await attempt('admin', password)
    t.equal(res.statusCode, 429, `throttled, password ${password === TEST_PASSWORD ? 'right' : 'wrong'}`)
    const retry = Number(res.headers['retry-after'])
    t.ok(Number.isInteger(retry) && retry >= 1 && retry <= 600, `Retry-After ${retry} within the window`)
    t.match(res.json(), { detail: /Too many failed logins/ })
    t.notOk(res.headers['set-cookie'], 'no session while throttled')
  }
  t.equal((await attempt('admin', TEST_PASSWORD, '10.78.0.1')).statusCode, 200, 'another client is not affected')
})

test('without TRUST_PROXY a forged X-Forwarded-For does not escape the limit', async (t) => {
  const remoteAddress = `10.79.${process.pid % 250}.${Math.floor(Math.random() * 250)}`
  for (let i = 0; i < app.config.LOGIN_MAX_FAILURES; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress,
      headers: { 'x-forwarded-for': `192.0.2.${i}` },
      payload: { username: 'admin', password: 'wrong' },
    })
    t.equal(res.statusCode, 401)
  }
  const blocked = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress,
    headers: { 'x-forwarded-for': '198.51.100.7' },
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  t.equal(blocked.statusCode, 429, 'counted by the socket address, not the header')
})

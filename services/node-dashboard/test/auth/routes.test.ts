import t from 'tap'
import { build, login, TEST_PASSWORD } from '../helper.ts'

// One instance for the whole file (starting one on the embedded database is slow on a busy machine).
const app = await build(t)
const { test } = t

const PROTECTED: [string, string][] = [
  ['POST', '/api/auth/logout'],
  ['GET', '/api/settings'],
  ['PUT', '/api/settings'],
  ['GET', '/api/dashboard/summary'],
  ['GET', '/api/dashboard/history'],
  ['GET', '/api/dashboard/history/5m'],
  ['POST', '/api/rpc/call'],
  ['GET', '/api/rpc/commands'],
  ['GET', '/api/rpc/help/getblockcount'],
  ['POST', '/api/actions/stop'],
  ['POST', '/api/actions/start'],
  ['POST', '/api/actions/restart'],
]

test('login sets an HttpOnly, SameSite=Lax, 8-hour, Path=/ session cookie (not Secure by default)', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { authenticated: true, username: 'admin' })
  t.equal(res.headers['cache-control'], 'no-store')
  const header = String(res.headers['set-cookie'])
  t.match(header, /^dashboard_session=/)
  t.match(header, /; HttpOnly/i)
  t.match(header, /; SameSite=Lax/i)
  t.match(header, /; Path=\//)
  t.match(header, /; Max-Age=28800/)
  t.notMatch(header, /; Secure/i)
  const expires = Date.parse(/Expires=([^;]+)/.exec(header)![1])
  t.ok(Math.abs(expires - (Date.now() + 8 * 3600_000)) < 60_000, 'Expires is 8 hours ahead')
})

test('SESSION_COOKIE_SECURE=true marks the cookie Secure', async (t) => {
  const secure = await build(t, { env: { SESSION_COOKIE_SECURE: 'true', TRUST_PROXY: 'true' } })
  const res = await secure.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'x-forwarded-proto': 'https' },
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  t.equal(res.statusCode, 200)
  t.match(String(res.headers['set-cookie']), /; Secure/i)
})

test('me, logout and the session life cycle', async (t) => {
  const anonymous = await app.inject({ method: 'GET', url: '/api/auth/me' })
  t.same(anonymous.json(), { authenticated: false, username: null })
  t.equal(anonymous.headers['set-cookie'], undefined, 'no cookie for anonymous visits')

  const cookie = await login(app)
  const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })
  t.same(me.json(), { authenticated: true, username: 'admin' })
  t.equal(me.headers['set-cookie'], undefined, 'the cookie is not re-issued (expires 8 h after login)')

  const out = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } })
  t.equal(out.statusCode, 200)
  t.same(out.json(), { authenticated: false, username: null })
  t.match(String(out.headers['set-cookie']), /^dashboard_session=;.*Max-Age=0/i)
  const after = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })
  t.same(after.json(), { authenticated: false, username: null }, 'the old cookie no longer works')
  const again = await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie } })
  t.equal(again.statusCode, 401)
})

test('a session ends 8 hours after login, enforced by the server too', async (t) => {
  const cookie = await login(app)
  const { rows } = await app.db.query<{ hours: number }>(
    'SELECT extract(epoch FROM expires_at - now())::float8 / 3600 AS hours FROM sessions ORDER BY expires_at DESC LIMIT 1',
  )
  t.ok(Math.abs(rows[0].hours - 8) < 0.05, `stored expiry ${rows[0].hours} h ahead`)
  await app.db.query("UPDATE sessions SET expires_at = now() - interval '1 second'")
  const res = await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie } })
  t.equal(res.statusCode, 401, 'an expired session is refused even if the browser still sends the cookie')
})

test('login issues a new session id (no fixation) and the old id is destroyed', async (t) => {
  const first = await login(app)
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { cookie: first },
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  const second = res.cookies.find((c) => c.name === 'dashboard_session')!
  t.not(`${second.name}=${second.value}`, first)
  const old = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie: first } })
  t.equal(old.json().authenticated, false)
})

test('bad credentials: 401 with the same answer for unknown user and wrong password', async (t) => {
  const wrong = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: 'nope' } })
  const unknown = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'root', password: TEST_PASSWORD },
  })
  t.equal(wrong.statusCode, 401)
  t.equal(unknown.statusCode, 401)
  t.same(wrong.json(), unknown.json())
  t.same(wrong.json(), { detail: 'Invalid username or password.' })
  t.equal(wrong.headers['set-cookie'], undefined)
})

test('login body validation answers 422 naming the field', async (t) => {
  const cases: [unknown, RegExp][] = [
    [{ username: 'admin' }, /password/],
    [{ password: 'x' }, /username/],
    [{ username: '', password: 'x' }, /username/],
    [{ username: 'admin', password: 'x'.repeat(1025) }, /password/],
    [{ username: 'admin', password: 'x', extra: 1 }, /extra/],
    [[], /body/i],
  ]
  for (const [payload, field] of cases) {
    const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: payload as object })
    t.equal(res.statusCode, 422, JSON.stringify(payload))
    t.match(res.json().detail, field)
  }
})

test('failed logins are limited per IP: 429 with Retry-After, even for the right password', async (t) => {
  const attempt = (password: string, ip = '10.0.0.1') =>
    app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { username: 'admin', password } })
  for (let i = 0; i < app.config.LOGIN_MAX_FAILURES; i++) t.equal((await attempt('wrong')).statusCode, 401)
  const blocked = await attempt(TEST_PASSWORD)
  t.equal(blocked.statusCode, 429)
  t.ok(Number(blocked.headers['retry-after']) >= 1)
  t.match(blocked.json().detail, /Too many failed logins/)
  t.equal((await attempt(TEST_PASSWORD, '10.0.0.2')).statusCode, 200, 'another IP is not affected')
})

test('every Auth=Yes endpoint answers 401 {detail} without a session', async (t) => {
  for (const [method, url] of PROTECTED) {
    const res = await app.inject({ method: method as 'GET', url, payload: method === 'GET' ? undefined : {} })
    t.equal(res.statusCode, 401, `${method} ${url}`)
    t.match(res.json(), { detail: /log in/ }, `${method} ${url}`)
  }
  const forged = await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie: 'dashboard_session=forged.value' } })
  t.equal(forged.statusCode, 401)
  const missing = await app.inject({ method: 'GET', url: '/api/no-such-thing' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers['cache-control'], 'no-store', 'no-store on every /api/ answer, errors included')
})

test('CSRF: a foreign Origin or Referer on a state change is refused with 403', async (t) => {
  const cookie = await login(app)
  const put = (headers: Record<string, string>) =>
    app.inject({ method: 'PUT', url: '/api/settings', headers: { cookie, host: 'dash.local:8081', ...headers }, payload: {} })
  t.equal((await put({ origin: 'https://evil.example' })).statusCode, 403)
  t.match((await put({ origin: 'null' })).json().detail, /Cross-origin/)
  t.equal((await put({ referer: 'https://evil.example/page' })).statusCode, 403)
  t.equal((await put({ origin: 'http://dash.local:8082' })).statusCode, 403, 'another port is another origin')
  t.equal((await put({ origin: 'http://dash.local:8081' })).statusCode, 200)
  t.equal((await put({ referer: 'http://dash.local:8081/settings' })).statusCode, 200)
  t.equal((await put({})).statusCode, 200, 'no Origin and no Referer (command-line clients) is allowed')
  const crossLogin = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { origin: 'https://evil.example' },
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  t.equal(crossLogin.statusCode, 403, 'login CSRF is refused too')
  const read = await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie, origin: 'https://evil.example' } })
  t.equal(read.statusCode, 200, 'reads are not state changes')
})

test('login and logout send one Set-Cookie per cookie name', async (t) => {
  const perName = (res: { headers: Record<string, unknown> }) => {
    const counts: Record<string, number> = {}
    for (const cookie of [res.headers['set-cookie'] ?? []].flat() as string[]) {
      const name = cookie.slice(0, cookie.indexOf('='))
      counts[name] = (counts[name] ?? 0) + 1
    }
    return counts
  }
  const fresh = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  t.same(perName(fresh), { dashboard_session: 1 }, 'login')
  const cookie = await login(app)
  const again = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { cookie },
    payload: { username: 'admin', password: TEST_PASSWORD },
  })
  t.same(perName(again), { dashboard_session: 1 }, 'login over an existing session')
  t.match(String(again.headers['set-cookie']), /Max-Age=28800/)
  const current = again.cookies.find((c) => c.name === 'dashboard_session')!
  const out = await app.inject({
    method: 'POST',
    url: '/api/auth/logout',
    headers: { cookie: `${current.name}=${current.value}` },
  })
  t.equal(out.statusCode, 200)
  t.same(perName(out), { dashboard_session: 1 }, 'logout')
  t.match(String(out.headers['set-cookie']), /^dashboard_session=;.*Max-Age=0/i)
})

test('sessions live in PostgreSQL: shared by two instances and surviving a restart', async (t) => {
  const second = await build(t, { shareWith: app })
  const cookie = await login(second)
  const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })
  t.same(res.json(), { authenticated: true, username: 'admin' }, 'a session made on one instance works on the other')
  await second.close()
  const third = await build(t, { shareWith: app })
  t.equal(
    (await third.inject({ method: 'GET', url: '/api/settings', headers: { cookie } })).statusCode,
    200,
    'and after a restart',
  )
})

import { readFile } from 'node:fs/promises'
import { startNodeSimulator } from '@app/node-simulator'
import { type LiveAnswer, operationProblems, redoclyLint, swaggerParserValidate, undocumentedHeaders } from '@app/testing/openapi'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { formatDocument, OPENAPI_FILE } from '../../src/openapi/document.ts'
import { build, login } from '../helper.ts'

type Json = Record<string, any>
const RPC_PASSWORD = 'conformance-rpc-Secret'

// Redocly's recommended rules we accept as warnings: no license (a private service), and operations that
// cannot fail with a 4xx (health, me, this document).
const ACCEPTED_WARNINGS = /^warn (info-license|operation-4xx-response):/

// One instance for the file; the failed-login budget is small so the 429 is reachable.
const METRICS_TOKEN = 'conformance-metrics-token'
const app = await build(t, { env: { LOGIN_MAX_FAILURES: '2', RPC_METHOD_DENYLIST: 'stop', METRICS_TOKEN } })
const doc = app.swagger() as Json
const { test } = t

test('the document passes redocly lint (recommended) and swagger-parser, offline', async (t) => {
  const lint = await redoclyLint(doc)
  t.equal(lint.errors, 0, `redocly lint has no errors\n${lint.report}`)
  t.same(
    lint.report.split('\n').filter((line) => line && !ACCEPTED_WARNINGS.test(line)),
    [],
    'no warning beyond the accepted ones',
  )
  if (!lint.offline) t.comment('unshare -rn is unavailable: redocly ran with the network reachable')
  await t.resolves(swaggerParserValidate(doc), 'swagger-parser validates it')
  t.same(operationProblems(doc), [], 'operationId, summary, tags, security and descriptions everywhere')
})

test('servers, the session scheme, public and protected operations, and what stays out', async (t) => {
  t.same(doc.servers, [{ url: '/' }])
  t.match(doc.components.securitySchemes.sessionCookie, { type: 'apiKey', in: 'cookie', name: 'dashboard_session' })
  // The spec's Auth = No routes, the document, and readiness (a load balancer's probe carries no session).
  const publicOperations = ['GET /api/health', 'GET /api/ready', 'GET /api/auth/me', 'POST /api/auth/login', 'GET /openapi.json']
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const name = `${method.toUpperCase()} ${path}`
      // Prometheus scrapes with the METRICS_TOKEN bearer token, not a session.
      const protectedBy = name === 'GET /metrics' ? [{ metricsToken: [] }] : [{ sessionCookie: [] }]
      const expected = publicOperations.includes(name) ? [] : protectedBy
      t.same(op.security, expected, `${name}: ${expected.length ? `needs ${Object.keys(expected[0])[0]}` : 'public'}`)
    }
  }
  const paths = Object.keys(doc.paths)
  t.notOk(
    paths.some((p) => p === '/' || p.startsWith('/static') || p.startsWith('/docs')),
    `no page, asset or docs route: ${paths.join(' ')}`,
  )
  t.equal(doc.paths['/api/auth/login'].post.operationId, 'login')
  t.equal(doc.paths['/api/dashboard/summary'].get.operationId, 'getDashboardSummary')
  t.match(doc.components.securitySchemes.metricsToken, { type: 'http', scheme: 'bearer' })
  t.ok(doc.paths['/metrics'].get.responses['200'].content['text/plain'], 'the metrics are documented as text/plain')
})

test('the committed openapi.json is the document the routes generate (pnpm openapi:export)', async (t) => {
  const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => '')
  t.equal(committed, formatDocument(doc), 'services/node-dashboard/openapi.json is up to date')
})

test('every header a live answer carries is documented on the response that sent it', async (t) => {
  const sim = await startNodeSimulator({ password: RPC_PASSWORD })
  t.teardown(() => sim.close())
  const anonymous = await app.inject({ method: 'GET', url: '/api/dashboard/summary' })
  const cookie = await login(app)
  const session = { cookie }
  const json = { ...session, 'content-type': 'application/json' }
  // Without rpc_url the node-reading routes answer 400.
  const unconfigured = await app.inject({ method: 'GET', url: '/api/dashboard/summary', headers: session })
  const put = (payload: unknown, headers: Record<string, string> = json): InjectOptions => ({
    method: 'PUT',
    url: '/api/settings',
    headers,
    payload: JSON.stringify(payload),
  })
  const answers: LiveAnswer[] = [
    { operation: ['get', '/api/dashboard/summary'], status: anonymous.statusCode, headers: anonymous.headers },
    { operation: ['get', '/api/dashboard/summary'], status: unconfigured.statusCode, headers: unconfigured.headers },
  ]
  t.equal(anonymous.statusCode, 401)
  t.equal(unconfigured.statusCode, 400)
  const settings = { rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD, rpc_wallet: '' }
  const cases: [operation: [string, string], request: InjectOptions, status: number][] = [
    [['get', '/api/health'], { url: '/api/health' }, 200],
    [['get', '/openapi.json'], { url: '/openapi.json' }, 200],
    [['get', '/api/auth/me'], { url: '/api/auth/me', headers: session }, 200],
    [['get', '/api/settings'], { url: '/api/settings' }, 401],
    [['put', '/api/settings'], put(settings), 200],
    [['put', '/api/settings'], put({ ssh_port: 0 }), 422],
    [['put', '/api/settings'], put(settings, { ...json, origin: 'https://evil.example' }), 403],
    [['get', '/api/settings'], { url: '/api/settings', headers: session }, 200],
    [['get', '/api/dashboard/summary'], { url: '/api/dashboard/summary', headers: session }, 200],
    [['get', '/api/dashboard/history'], { url: '/api/dashboard/history?window=5m', headers: session }, 200],
    [['get', '/api/dashboard/history/{window}'], { url: '/api/dashboard/history/1y', headers: session }, 422],
    [
      ['post', '/api/rpc/call'],
      { method: 'POST', url: '/api/rpc/call', headers: json, payload: '{"method":"getblockcount","params":[]}' },
      200,
    ],
    [
      ['post', '/api/rpc/call'],
      { method: 'POST', url: '/api/rpc/call', headers: json, payload: '{"method":"stop","params":[]}' },
      403,
    ],
    [['get', '/api/rpc/commands'], { url: '/api/rpc/commands', headers: session }, 200],
    [['get', '/api/rpc/help/{method_name}'], { url: '/api/rpc/help/getblockcount', headers: session }, 200],
    [['get', '/api/rpc/help/{method_name}'], { url: '/api/rpc/help/nosuchmethod', headers: session }, 404],
    [['post', '/api/actions/stop'], { method: 'POST', url: '/api/actions/stop' }, 401],
    [['get', '/metrics'], { url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } }, 200],
    [['get', '/metrics'], { url: '/metrics', headers: { authorization: 'Bearer wrong' } }, 401],
    [['post', '/api/auth/logout'], { method: 'POST', url: '/api/auth/logout', headers: session }, 200],
    [['post', '/api/auth/logout'], { method: 'POST', url: '/api/auth/logout' }, 401],
    [['post', '/api/auth/login'], { method: 'POST', url: '/api/auth/login', payload: { username: 'admin' } }, 422],
  ]
  for (const [operation, request, status] of cases) {
    const res = await app.inject(request)
    t.equal(
      res.statusCode,
      status,
      `${operation.join(' ')} → ${status} ${res.statusCode === status ? '' : res.body.slice(0, 200)}`,
    )
    answers.push({ operation, status: res.statusCode, headers: res.headers })
  }
  // A fresh login (Set-Cookie), then wrong passwords from one address until the 429 with Retry-After.
  const fresh = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: 'correct horse battery staple' },
  })
  t.equal(fresh.statusCode, 200)
  t.ok(fresh.headers['set-cookie'], 'login sets the session cookie')
  answers.push({ operation: ['post', '/api/auth/login'], status: fresh.statusCode, headers: fresh.headers })
  const statuses: number[] = []
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '198.51.100.9',
      payload: { username: 'admin', password: 'wrong' },
    })
    statuses.push(res.statusCode)
    answers.push({ operation: ['post', '/api/auth/login'], status: res.statusCode, headers: res.headers })
  }
  t.same(statuses, [401, 401, 429], 'wrong passwords: 401 until the budget of 2 is spent, then 429')
  t.same(undocumentedHeaders(doc, answers), [], 'no header is sent that its response does not document')
  t.ok(doc.paths['/api/auth/login'].post.responses['200'].headers['Set-Cookie'], 'login documents Set-Cookie')
  t.ok(doc.paths['/api/auth/login'].post.responses['429'].headers['Retry-After'], 'login 429 documents Retry-After')
})

test('/docs: the interactive reference, behind the session, from local assets under a strict CSP', async (t) => {
  for (const url of ['/docs', '/docs/', '/docs/json', '/docs/static/index.html']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 401, `${url} without a session → 401`)
    t.match(res.json(), { detail: String }, `${url}: the {detail} error`)
  }
  const cookie = await login(app)
  const page = await app.inject({ url: '/docs/', headers: { cookie } })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.notMatch(page.body, /https?:\/\/(cdn|unpkg|cdnjs)/, 'no CDN')
  const csp = String(page.headers['content-security-policy'] ?? '')
  t.match(csp, /script-src 'self'/, 'scripts from this origin only')
  t.notMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/, 'no inline script or eval')
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  t.equal(page.headers['cache-control'], 'no-store')
  const scripts = [...page.body.matchAll(/src="([^"]+\.js)"/g)].map((m) => new URL(m[1], 'http://x/docs/').pathname)
  t.ok(scripts.length > 0, 'the page loads scripts from files')
  for (const url of scripts) {
    const res = await app.inject({ url, headers: { cookie } })
    t.equal(res.statusCode, 200, `${url} is served`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url} nosniff`)
  }
  const json = await app.inject({ url: '/docs/json', headers: { cookie } })
  t.same(json.json(), doc, '/docs shows this document')
  const initializer = await app.inject({ url: '/docs/static/swagger-initializer.js', headers: { cookie } })
  t.match(initializer.body, /validatorUrl:\s*null/, 'no outside validator')
})

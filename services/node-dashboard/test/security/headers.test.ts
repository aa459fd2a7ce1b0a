import { readdir, readFile } from 'node:fs/promises'
import { connect } from 'node:net'
import path from 'node:path'
import t, { type Test } from 'tap'
import { webDistDir } from '../../src/service-root.ts'
import { build, login } from '../helper.ts'

// One instance for the whole file: starting the embedded database is the slow part on a busy machine.
const app = await build(t)
await app.listen({ host: '127.0.0.1', port: 0 })
const { port } = app.server.address() as { port: number }
const cookie = await login(app)
const { test } = t

interface Raw {
  status: number | undefined
  head: string
  body: string
}

/** Sends the request target byte for byte: inject() and fetch() normalise `..` and `%2e%2e` before the server sees them. */
function rawGet(target: string): Promise<Raw> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const finish = () => {
      clearTimeout(timer)
      socket.destroy()
      const text = Buffer.concat(chunks).toString('latin1')
      const [head, ...rest] = text.split('\r\n\r\n')
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]
      resolve({ status: status ? Number(status) : undefined, head: head ?? '', body: rest.join('\r\n\r\n') })
    }
    const timer = setTimeout(finish, 30_000)
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', finish)
    socket.on('close', finish)
    socket.on('connect', () =>
      socket.end(Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, 'latin1')),
    )
  })
}

/** The hardening every answer needs, whatever its status or content type. */
function checkHeaders(t: Test, headers: Record<string, unknown>, name: string) {
  const csp = String(headers['content-security-policy'] ?? '')
  t.match(csp, /default-src 'none'/, `${name}: CSP denies by default`)
  const script = /script-src ([^;]*)/.exec(csp)?.[1] ?? "'none' (default-src)"
  t.notMatch(script, /unsafe-inline|unsafe-eval|\*/, `${name}: no inline or eval script (${script})`)
  t.equal(headers['x-content-type-options'], 'nosniff', `${name}: nosniff`)
  t.ok(headers['x-frame-options'] === 'DENY' || /frame-ancestors 'none'/.test(csp), `${name}: cannot be framed`)
  t.match(
    String(headers['referrer-policy']),
    /^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/,
    `${name}: Referrer-Policy`,
  )
}

test('security headers on the shell, the assets and every kind of API answer', async (t) => {
  const shell = await app.inject({ method: 'GET', url: '/' })
  const assets = [...shell.body.matchAll(/\/static\/assets\/[\w.-]+\.(?:js|css)/g)].map((m) => m[0])
  t.ok(assets.length >= 2, 'the shell links its script and stylesheet')
  const samples: [
    string,
    { method?: 'GET' | 'PUT' | 'POST'; url: string; headers?: Record<string, string>; payload?: object },
    number,
  ][] = [
    ['shell', { url: '/' }, 200],
    ...assets.map((url): [string, { url: string }, number] => [url, { url }, 200]),
    ['missing asset', { url: '/static/assets/nope.js' }, 404],
    ['health', { url: '/api/health' }, 200],
    ['me', { url: '/api/auth/me' }, 200],
    ['openapi', { url: '/openapi.json' }, 200],
    ['settings', { url: '/api/settings', headers: { cookie } }, 200],
    ['401', { url: '/api/settings' }, 401],
    ['401 login', { method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: 'wrong' } }, 401],
    ['404 api', { url: '/api/no-such-route' }, 404],
    ['404 outside api', { url: '/no-such-page' }, 404],
    ['422 path', { url: '/api/dashboard/history/9x', headers: { cookie } }, 422],
    ['422 body', { method: 'PUT', url: '/api/settings', headers: { cookie }, payload: { ssh_port: 0 } }, 422],
    ['400 missing setting', { url: '/api/dashboard/summary', headers: { cookie } }, 400],
    ['403 CSRF', { method: 'PUT', url: '/api/settings', headers: { cookie, origin: 'https://evil.example' }, payload: {} }, 403],
  ]
  for (const [name, request, status] of samples) {
    const res = await app.inject({ method: 'GET', ...request })
    t.equal(res.statusCode, status, `${name}: status`)
    checkHeaders(t, res.headers, `${name} ${status}`)
    if (request.url.startsWith('/api/') || request.url.startsWith('/static/')) {
      t.equal(res.headers['cache-control'], 'no-store', `${name}: no-store`)
    }
  }
})

test('an undecodable /api/ URL (answered before routing) still carries the headers', async (t) => {
  const res = await rawGet('/api/%')
  t.equal(res.status, 422)
  const headers = Object.fromEntries(
    res.head
      .split('\r\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  )
  // Fastify answers frameworkErrors before routing, past onSend: packages/common sets these itself.
  t.equal(headers['cache-control'], 'no-store', 'no-store')
  t.equal(headers['x-content-type-options'], 'nosniff', 'nosniff')
  t.match(headers['content-security-policy'], /frame-ancestors 'none'/, 'not framed')
})

test('path traversal on /static/ never serves a file outside dist/web and never fails with 5xx', async (t) => {
  // Contents that must never come back: the service's package.json, its source, the repository's, /etc/passwd.
  const forbidden = [
    '"name": "@app/node-dashboard"',
    '"name": "memes-and-nodes"',
    'export function buildApp(config: Config',
    'root:x:0:0',
  ]
  const servable = new Set<string>()
  for (const entry of await readdir(webDistDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) servable.add(await readFile(path.join(entry.parentPath, entry.name), 'latin1'))
  }
  const up = (n: number, sep: string) => sep.repeat(n)
  const targets = [
    '/static/../package.json',
    '/static/../../package.json',
    '/static/../../src/app.ts',
    '/static/../../../../package.json',
    `/static/${up(12, '../')}etc/passwd`,
    '/static/%2e%2e/%2e%2e/package.json',
    '/static/%2e%2e%2f%2e%2e%2fpackage.json',
    '/static/..%2f..%2fpackage.json',
    '/static/.%2e/.%2e/package.json',
    `/static/${up(12, '%2e%2e%2f')}etc%2fpasswd`,
    '/static/%252e%252e/%252e%252e/package.json',
    '/static/%252e%252e%252f%252e%252e%252fpackage.json',
    '/static/..\\..\\package.json',
    '/static/..%5c..%5cpackage.json',
    '/static/%2e%2e%5c%2e%2e%5cpackage.json',
    '/static/....//....//package.json',
    '/static/..;/..;/package.json',
    '/static/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json',
    '/static/assets/../../../package.json',
    '/static/index.html%00.js',
    '/static/../../package.json%00.js',
    '/static/%00',
    '/static//etc/passwd',
    '/static/%2fetc%2fpasswd',
    '/static/%2Fetc%2Fpasswd',
    '/static/etc/passwd',
    '/static/file:///etc/passwd',
    `http://127.0.0.1:${port}/static/../../package.json`,
    '/static/.source-hash',
    '/static/%2esource-hash',
  ]
  for (const target of targets) {
    const res = await rawGet(target)
    t.ok(res.status === undefined || res.status < 500, `${target}: ${res.status ?? 'closed'}, no 5xx`)
    for (const text of forbidden) t.notOk(res.body.includes(text), `${target}: does not leak ${text}`)
    if (res.status === 200) t.ok(servable.has(res.body), `${target}: a 200 serves a file inside dist/web`)
  }
  t.equal((await rawGet('/api/health')).status, 200, 'still answering')
})

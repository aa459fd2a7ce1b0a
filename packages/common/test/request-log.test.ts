import { spawn } from 'node:child_process'
import path from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { createNotFoundHandler } from '../src/errors.ts'
import { apiSecurityPolicy } from '../src/security-headers.ts'
import { createFastify } from '../src/server.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function app(t: { teardown(fn: () => unknown): void }) {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  const config = { LOG_LEVEL: 'info', LOG_FORMAT: 'json', TRUST_PROXY: 'false' } as const
  const fastify = createFastify(
    config,
    { messageKey: 'error', validationStatus: 400, securityHeaders: apiSecurityPolicy },
    { stream },
  )
  fastify.setNotFoundHandler(createNotFoundHandler('error'))
  fastify.get('/items/:id', async () => ({ ok: true }))
  fastify.get('/probe', { logLevel: 'warn' }, async () => ({ ok: true }))
  await fastify.ready()
  t.teardown(() => fastify.close())
  return { fastify, lines }
}

test('a short printable X-Request-Id is used as the log id and returned', async (t) => {
  const { fastify, lines } = await app(t)
  const res = await fastify.inject({ url: '/items/1', headers: { 'x-request-id': 'edge-7f3a:42/b' } })
  t.equal(res.headers['x-request-id'], 'edge-7f3a:42/b')
  const line = lines.find((l) => l.msg === 'GET /items/1 200 ' + String(l.responseTime) + ' ms')
  t.ok(line, 'one request line')
  t.equal(line?.reqId, 'edge-7f3a:42/b', 'logged under the caller’s id')
})

test('without an id, or with one that is too long or not printable, a generated id is returned instead', async (t) => {
  const { fastify, lines } = await app(t)
  const bad = ['x'.repeat(129), 'has space', 'tab\there', 'line\u0085break', 'ünïcode', '']
  const ids = new Set<string>()
  for (const id of [undefined, ...bad]) {
    const res = await fastify.inject({ url: '/items/1', headers: id === undefined ? {} : { 'x-request-id': id } })
    const answered = String(res.headers['x-request-id'])
    t.match(answered, UUID, `generated for ${JSON.stringify(id)}`)
    ids.add(answered)
  }
  t.equal(ids.size, bad.length + 1, 'a new id each time')
  const logged = JSON.stringify(lines)
  t.notOk(logged.includes('x'.repeat(129)), 'the refused id is not logged')
  t.notOk(logged.includes('has space'))
})

test('the id comes back on 404s and on errors Fastify answers before routing', async (t) => {
  const { fastify } = await app(t)
  const missing = await fastify.inject({ url: '/nowhere', headers: { 'x-request-id': 'abc' } })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers['x-request-id'], 'abc')
  const badUrl = await fastify.inject({ url: '/items/%ED%A0%80', headers: { 'x-request-id': 'def' } })
  t.equal(badUrl.statusCode, 400)
  t.equal(badUrl.headers['x-request-id'], 'def')
})

test('one log line per request; a route logged above info (a probe) adds none', async (t) => {
  const { fastify, lines } = await app(t)
  await fastify.inject({ url: '/items/9?x=1' })
  await fastify.inject({ url: '/probe' })
  const requestLines = lines.filter((l) => l.req !== undefined || l.res !== undefined)
  t.equal(requestLines.length, 1, JSON.stringify(requestLines))
  const [line] = requestLines as Array<Record<string, any>>
  t.match(line?.msg, /^GET \/items\/9\?x=1 200 [\d.]+ ms$/)
  t.same(line?.req.method, 'GET', 'JSON keeps the request fields')
  t.equal(line?.res.statusCode, 200)
  t.type(line?.responseTime, 'number')
  t.notOk(
    lines.some((l) => l.msg === 'incoming request' || l.msg === 'request completed'),
    'not Fastify’s two lines',
  )
})

test('a preflight nothing granted answers 204 without any allow header, not 404', async (t) => {
  const { fastify } = await app(t)
  const res = await fastify.inject({
    method: 'OPTIONS',
    url: '/items/1',
    headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'DELETE' },
  })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.same(
    Object.keys(res.headers).filter((h) => h.startsWith('access-control-')),
    [],
  )
  const plain = await fastify.inject({ method: 'OPTIONS', url: '/items/1' })
  t.equal(plain.statusCode, 404, 'an OPTIONS that is no preflight is still a 404')
})

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'server.ts')

test('pretty logs show one request on one line, with its id, method, URL, status and time', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: { PATH: process.env.PATH ?? '', API_SECRET: 'a-long-enough-secret', LOG_FORMAT: 'pretty', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.on('data', (d) => {
    stdout += d
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  t.teardown(() => child.kill('SIGKILL'))
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listen line: ${stdout}`)), 30_000)
    child.stdout.on('data', () => {
      const match = stdout.match(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/)
      if (match) {
        clearTimeout(timer)
        resolve(match[1] as string)
      }
    })
  })
  await fetch(`${address}/hello`, { headers: { 'x-request-id': 'pretty-1' } })
  await fetch(`${address}/nope`, { headers: { 'x-request-id': 'pretty-2' } })
  child.kill('SIGTERM')
  await exited
  const lines = stdout.split('\n')
  const hello = lines.filter((l) => l.includes('/hello'))
  t.equal(hello.length, 1, `one line for GET /hello:\n${stdout}`)
  t.match(hello[0], /INFO.*\[pretty-1\] GET \/hello 200 [\d.]+ ms$/)
  t.match(stdout, /\[pretty-2\] GET \/nope 404 [\d.]+ ms\n/)
  t.notMatch(stdout, /incoming request|request completed/)
  t.notMatch(stdout, /^\s+(req|res|responseTime|reqId):/m, 'no object lines under a request line')
})

import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { apiSecurityPolicy } from '../src/security-headers.ts'

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'server.ts')

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => {
    stdout += d
  })
  child.stderr.on('data', (d) => {
    stderr += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, output: () => ({ stdout, stderr }) }
}

test('a bad configuration stops start-up with one readable message and exit code 1', async (t) => {
  const proc = run({ PORT: 'http', API_SECRET: 'short-secret' })
  t.equal(await proc.exited, 1)
  const { stderr } = proc.output()
  t.match(stderr, /fixture: Invalid configuration:/)
  t.match(stderr, /PORT is invalid: expected integer/)
  t.match(stderr, /API_SECRET is invalid: expected string at least 16 characters/)
  t.notMatch(stderr, /short-secret/, 'the secret value is not printed')
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
})

test('serves, redacts secrets in logs, and shuts down gracefully on SIGTERM', async (t) => {
  const proc = run({ API_SECRET: 'a-long-enough-secret', LOG_LEVEL: 'info' })
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listen line: ${JSON.stringify(proc.output())}`)), 20_000)
    proc.child.stdout.on('data', () => {
      const match = proc.output().stdout.match(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/)
      if (match) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
  })
  const res = await fetch(`${address}/hello`, { headers: { authorization: 'Bearer top-secret-token', 'x-request-id': 'req-42' } })
  t.same(await res.json(), { ok: true })
  t.equal(res.headers.get('x-request-id') ?? 'req-42', 'req-42')
  proc.child.kill('SIGTERM')
  t.equal(await proc.exited, 0, 'clean exit')
  const { stdout } = proc.output()
  t.notMatch(stdout, /top-secret-token/, 'authorization header redacted')
  t.notMatch(stdout, /hunter2-in-body/, 'password fields redacted')
  t.match(stdout, /"reqId":"req-42"/, 'request id from the header is logged')
  t.match(stdout, /shutting down/)
})

test('errors Fastify answers before routing carry the service body shape', async (t) => {
  const { default: Fastify } = await import('fastify')
  const { fastifyOptions } = await import('../src/server.ts')
  const config = { LOG_LEVEL: 'silent', LOG_FORMAT: 'json', TRUST_PROXY: 'false' } as const
  const app = Fastify(
    fastifyOptions(config, { messageKey: 'detail', validationStatus: 422, securityHeaders: apiSecurityPolicy, pretty: false }),
  )
  app.get('/items/:id', async () => ({ ok: true }))
  t.teardown(() => app.close())
  const badUrl = await app.inject('/items/%ED%A0%80')
  t.equal(badUrl.statusCode, 422, 'an undecodable path fails validation')
  t.same(Object.keys(badUrl.json()), ['detail'], 'undecodable URL: {detail} only')
  const longParam = await app.inject(`/items/${'x'.repeat(200)}`)
  t.equal(longParam.statusCode, 414)
  t.same(Object.keys(longParam.json()), ['detail'], 'over-long parameter: {detail} only')
  for (const res of [badUrl, longParam]) {
    // Answered before routing, past the services' onSend hooks: the headers are set by the handler.
    t.equal(res.headers['cache-control'], 'no-store')
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
  }
})

async function listen(
  t: { teardown(fn: () => unknown): void },
  env: Record<string, string> = {},
  routes: (app: import('fastify').FastifyInstance) => void = () => {},
) {
  const { default: Fastify } = await import('fastify')
  const { fastifyOptions } = await import('../src/server.ts')
  const { loadConfig } = await import('../src/config.ts')
  const { Type } = await import('@sinclair/typebox')
  const { baseConfigProperties } = await import('../src/config.ts')
  const config = loadConfig(Type.Object(baseConfigProperties), { LOG_LEVEL: 'silent', LOG_FORMAT: 'json', ...env })
  const app = Fastify(
    fastifyOptions(config, { messageKey: 'detail', validationStatus: 422, securityHeaders: apiSecurityPolicy, pretty: false }),
  )
  const { createErrorHandler } = await import('../src/errors.ts')
  app.setErrorHandler(createErrorHandler({ messageKey: 'detail', validationStatus: 422 }))
  app.post('/echo', async (request) => ({ body: request.body }))
  routes(app)
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  return { app, port: (app.server.address() as { port: number }).port }
}

test('a client that stalls mid-body is cut off within the idle bound', async (t) => {
  const net = await import('node:net')
  const { port } = await listen(t, { HTTP_IDLE_TIMEOUT_MS: '500' })
  const socket = net.connect(port, '127.0.0.1')
  let answer = ''
  socket.on('data', (d) => {
    answer += d
  })
  const started = Date.now()
  socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":"')
  socket.write('x'.repeat(900))
  const closed = await Promise.race([
    new Promise<boolean>((resolve) => socket.on('close', () => resolve(true))),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
  ])
  socket.destroy()
  t.ok(closed, 'the stalled connection is closed')
  t.ok(Date.now() - started < 3000, `closed after ${Date.now() - started} ms (bound 500 ms)`)
  t.ok(answer === '' || /^HTTP\/1\.1 408/.test(answer), `no answer or 408: ${answer.slice(0, 40)}`)
})

test('a slow but steady body is not cut off by the idle bound', async (t) => {
  const net = await import('node:net')
  const { port } = await listen(t, { HTTP_IDLE_TIMEOUT_MS: '400' })
  const socket = net.connect(port, '127.0.0.1')
  let answer = ''
  socket.on('data', (d) => {
    answer += d
  })
  const body = JSON.stringify({ a: 'x'.repeat(40) })
  socket.write(
    `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`,
  )
  // Ten pieces, 150 ms apart: 1.5 s in all, each gap under the idle bound.
  for (let i = 0; i < body.length; i += 5) {
    socket.write(body.slice(i, i + 5))
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  await Promise.race([new Promise((resolve) => socket.on('close', resolve)), new Promise((resolve) => setTimeout(resolve, 5000))])
  socket.destroy()
  t.match(answer, /^HTTP\/1\.1 200/)
})

test('an answer that takes longer than the idle bound still arrives; a stalled body is still cut off', async (t) => {
  const { createFastify } = await import('../src/server.ts')
  const { loadConfig, baseConfigProperties } = await import('../src/config.ts')
  const { Type } = await import('@sinclair/typebox')
  const config = loadConfig(Type.Object(baseConfigProperties), { LOG_LEVEL: 'silent', HTTP_IDLE_TIMEOUT_MS: '300' })
  const app = createFastify(config, { messageKey: 'detail', validationStatus: 422, securityHeaders: apiSecurityPolicy })
  const work = () => new Promise((resolve) => setTimeout(resolve, 1200))
  app.get('/slow', async () => {
    await work()
    return { done: true }
  })
  app.post('/slow', async (request) => {
    await work()
    return { body: request.body }
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const outcome = (res: Promise<Response>) =>
    res.then(
      async (r) => `${r.status} ${await r.text()}`,
      (e: Error & { cause?: { code?: string } }) => `error ${e.cause?.code ?? e.message}`,
    )
  t.equal(await outcome(fetch(`${base}/slow`)), '200 {"done":true}', 'four idle bounds of server work, answered')
  t.equal(
    await outcome(fetch(`${base}/slow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })),
    '200 {"body":{"a":1}}',
    'the same after a body',
  )
  const net = await import('node:net')
  const socket = net.connect((app.server.address() as { port: number }).port, '127.0.0.1')
  socket.write('POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":')
  const closed = await Promise.race([
    new Promise<boolean>((resolve) => socket.on('close', () => resolve(true))),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
  ])
  socket.destroy()
  t.ok(closed, 'a body that stops arriving is still cut off')
})

test('the server timeouts come from the configuration', async (t) => {
  const { app } = await listen(t, {
    HTTP_REQUEST_TIMEOUT_MS: '90000',
    HTTP_HEADERS_TIMEOUT_MS: '7000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '4000',
    HTTP_IDLE_TIMEOUT_MS: '20000',
  })
  t.equal(app.server.requestTimeout, 90000)
  t.equal(app.server.headersTimeout, 7000)
  t.equal(app.server.keepAliveTimeout, 4000)
  t.equal(app.server.timeout, 20000)
})

test('the defaults bound every phase of a request', async (t) => {
  const { app } = await listen(t)
  for (const name of ['requestTimeout', 'headersTimeout', 'keepAliveTimeout', 'timeout'] as const) {
    t.ok(app.server[name] > 0, `${name} is set (${app.server[name]})`)
  }
  t.ok(app.server.requestTimeout >= 120_000, 'a 5 MB upload over a slow link still fits')
})

test('JSON bodies validate strictly; query strings and paths still coerce', async (t) => {
  const { app } = await listen(t, {}, (app) => {
    app.post(
      '/typed/:id',
      {
        schema: {
          params: { type: 'object', properties: { id: { type: 'integer' } } },
          body: {
            type: 'object',
            properties: { params: { type: 'array' }, host: { type: 'string' }, n: { type: 'integer' } },
            additionalProperties: false,
          },
        },
      },
      async (request) => ({ params: request.params, body: request.body }),
    )
    app.get(
      '/typed',
      {
        schema: {
          querystring: {
            type: 'object',
            properties: { tag: { type: 'array', items: { type: 'string' } }, page: { type: 'integer' } },
          },
        },
      },
      async (request) => request.query,
    )
  })
  const post = (body: unknown) => app.inject({ method: 'POST', url: '/typed/7', payload: body as object })
  t.equal((await post({ params: 'x' })).statusCode, 422, 'a string is not an array')
  t.equal((await post({ host: ['  h  '] })).statusCode, 422, 'an array is not a string')
  t.equal((await post({ n: '5' })).statusCode, 422, 'a string is not an integer')
  t.equal((await post({ host: 5 })).statusCode, 422, 'a number is not a string')
  const good = await post({ params: ['x'], host: 'h', n: 5 })
  t.equal(good.statusCode, 200)
  t.same(good.json(), { params: { id: 7 }, body: { params: ['x'], host: 'h', n: 5 } }, 'path parameters still coerce')
  t.same((await app.inject('/typed?tag=a&page=2')).json(), { tag: ['a'], page: 2 }, 'one tag becomes an array')
  t.same((await app.inject('/typed?tag=a&tag=b')).json(), { tag: ['a', 'b'] })
})

test('a JSON body nested deeper than the limit fails validation before any handler runs', async (t) => {
  const { guardJsonBodies, MAX_BODY_DEPTH } = await import('../src/errors.ts')
  let ran = 0
  const { app } = await listen(t, {}, (app) => {
    guardJsonBodies(app)
    app.post('/deep', async (request) => {
      ran++
      return { ok: JSON.stringify(request.body).length }
    })
  })
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
  const deep = await app.inject({
    method: 'POST',
    url: '/deep',
    headers: { 'content-type': 'application/json' },
    payload: `{"params":${nested(10_000)}}`,
  })
  t.equal(deep.statusCode, 422)
  t.match(deep.json().detail, /deeper than \d+ levels/)
  const object = await app.inject({
    method: 'POST',
    url: '/deep',
    headers: { 'content-type': 'application/json' },
    payload: `${'{"a":'.repeat(MAX_BODY_DEPTH + 1)}1${'}'.repeat(MAX_BODY_DEPTH + 1)}`,
  })
  t.equal(object.statusCode, 422, 'nested objects count as well')
  t.equal(ran, 0, 'the handler never ran')
  const fine = await app.inject({
    method: 'POST',
    url: '/deep',
    headers: { 'content-type': 'application/json' },
    payload: `{"params":${nested(MAX_BODY_DEPTH - 1)}}`,
  })
  t.equal(fine.statusCode, 200, 'nesting up to the limit is accepted')
})

test('query numbers are finite: Infinity and 1e309 fail validation', async (t) => {
  const { app } = await listen(t, {}, (app) => {
    app.get(
      '/page',
      {
        schema: {
          querystring: {
            type: 'object',
            properties: { size: { type: 'integer', minimum: 1, maximum: 48 }, ratio: { type: 'number' } },
          },
        },
      },
      async (request) => request.query,
    )
  })
  for (const query of ['size=Infinity', 'size=1e309', 'size=-Infinity', 'ratio=Infinity', 'ratio=NaN']) {
    const res = await app.inject(`/page?${query}`)
    t.equal(res.statusCode, 422, query)
  }
  t.same((await app.inject('/page?size=12&ratio=0.5')).json(), { size: 12, ratio: 0.5 })
})

test('a JSON body string that is not well-formed Unicode fails validation before any handler runs', async (t) => {
  const { guardJsonBodies } = await import('../src/errors.ts')
  let ran = 0
  const { app } = await listen(t, {}, (app) => {
    guardJsonBodies(app)
    app.post('/text', async () => {
      ran++
      return { ok: true }
    })
  })
  for (const payload of ['{"name":"\\ud800"}', '{"a":["ok","x\\udc00y"]}', '{"\\ud800":1}']) {
    const res = await app.inject({ method: 'POST', url: '/text', headers: { 'content-type': 'application/json' }, payload })
    t.equal(res.statusCode, 422, payload)
    t.match(res.json().detail, /Unicode/)
  }
  t.equal(ran, 0)
  const fine = await app.inject({
    method: 'POST',
    url: '/text',
    headers: { 'content-type': 'application/json' },
    payload: '{"name":"\\ud83d\\ude00 ok"}',
  })
  t.equal(fine.statusCode, 200, 'a surrogate pair is fine')
})

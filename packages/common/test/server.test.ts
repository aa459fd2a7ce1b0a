import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'

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
  const app = Fastify(fastifyOptions(config, { messageKey: 'detail', validationStatus: 422, pretty: false }))
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

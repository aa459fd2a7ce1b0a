import { eventually, httpRequest, listenOnLoopback } from '@app/testing'
import { test } from 'tap'
import type { FastAnswer } from '../src/fast-path.ts'
import { apiSecurityHeaders } from '../src/security-headers.ts'
import { createFastify } from '../src/server.ts'

type Teardown = { teardown(fn: () => unknown): void }

/** A service with a routed `/who` and a pre-router `/early/who` telling what each sees of the client. */
async function serve(t: Teardown, TRUST_PROXY = 'false') {
  const lines: Record<string, unknown>[] = []
  const config = { LOG_LEVEL: 'info', LOG_FORMAT: 'json', TRUST_PROXY } as const
  const security = { baseline: apiSecurityHeaders, noStorePrefixes: ['/early/private'] }
  const fastify = createFastify(
    config,
    { messageKey: 'error', validationStatus: 400, securityHeaders: security },
    { stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
  )
  const json = (body: unknown): FastAnswer => ({
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-frame-options': 'SAMEORIGIN' },
    body: Buffer.from(JSON.stringify(body)),
  })
  fastify.get('/who', async (request) => ({ ip: request.ip, host: request.host }))
  fastify.get('/early/passes', async () => ({ routed: true }))
  fastify.get('/early/fails', async () => ({ routed: true }))
  fastify.get('/early/throws', async () => ({ routed: true }))
  fastify.addFastPath((request) => {
    if (request.url === '/early/who' || request.url === '/early/private') return json({ ip: request.ip, host: request.host })
    if (request.url === '/early/passes') return Promise.resolve(undefined)
    if (request.url === '/early/fails') return Promise.reject(new Error('broken path'))
    if (request.url === '/early/throws') throw new Error('broken at once')
    return undefined
  })
  await fastify.ready()
  t.teardown(() => fastify.close())
  const port = await listenOnLoopback(fastify)
  return { fastify, lines, request: (path: string, headers: Record<string, string> = {}) => httpRequest(port, path, { headers }) }
}

const forwarded = { 'x-forwarded-for': '203.0.113.9, 10.1.2.3', 'x-forwarded-host': 'a.example, b.example' }

test('the client address and host are Fastify’s under every TRUST_PROXY form', async (t) => {
  for (const trust of ['false', 'true', '1', '2', '127.0.0.1', '10.0.0.0/8, 127.0.0.1', '10.0.0.0/8']) {
    const { request } = await serve(t, trust)
    const headerSets: Record<string, string>[] = [{}, forwarded, { 'x-forwarded-for': '198.51.100.4' }]
    for (const headers of headerSets) {
      const routed = JSON.parse(String((await request('/who', headers)).body))
      const early = JSON.parse(String((await request('/early/who', headers)).body))
      t.same(early, routed, `TRUST_PROXY=${trust}, ${JSON.stringify(headers)}: ${JSON.stringify(routed)}`)
    }
  }
})

test('an early answer gets the request id, the missing security headers and no-store where the policy says', async (t) => {
  const { request } = await serve(t)
  const answer = await request('/early/who', { 'x-request-id': 'abc-1' })
  t.equal(answer.headers['x-request-id'], 'abc-1')
  t.equal(answer.headers['x-frame-options'], 'SAMEORIGIN', 'a header the path set is kept')
  t.equal(answer.headers['content-security-policy'], apiSecurityHeaders['Content-Security-Policy'])
  t.equal(answer.headers['referrer-policy'], 'no-referrer')
  t.equal(answer.headers['cache-control'], undefined)
  t.equal((await request('/early/private')).headers['cache-control'], 'no-store', 'a no-store prefix')
  t.match((await request('/early/who', { 'x-request-id': 'bad id' })).headers['x-request-id'], /^[0-9a-f-]{36}$/)
})

test('a path that passes, at once or after an await, or fails, leaves the request to the router', async (t) => {
  const { request, lines } = await serve(t)
  t.same(JSON.parse(String((await request('/early/passes')).body)), { routed: true })
  t.same(JSON.parse(String((await request('/early/fails')).body)), { routed: true })
  t.same(JSON.parse(String((await request('/early/throws')).body)), { routed: true }, 'a synchronous throw too')
  t.ok(
    lines.find((l) => l.msg === 'pre-router path failed; passed to the router' && l.level === 40),
    'the failure is logged as a warning',
  )
  t.equal((await request('/nothing')).status, 404)
})

test('one log line per early answer, shaped as a routed one', async (t) => {
  const { request, lines } = await serve(t)
  await request('/early/who', { 'x-request-id': 'early-1' })
  await request('/who', { 'x-request-id': 'routed-1' })
  // A line is written once the answer has been handed to the socket, which may come after the client has it.
  await eventually(() => lines.some((l) => l.reqId === 'early-1') && lines.some((l) => l.reqId === 'routed-1'), {
    timeoutMs: 5000,
    intervalMs: 10,
  })
  const early = lines.filter((l) => l.reqId === 'early-1')
  const routed = lines.filter((l) => l.reqId === 'routed-1')
  t.equal(early.length, 1)
  t.match(early[0].msg, /^GET \/early\/who 200 [0-9.]+ ms$/)
  t.same(Object.keys(early[0]), Object.keys(routed[0]), 'same fields in the same order')
  t.same((early[0].req as { remoteAddress: string }).remoteAddress, '127.0.0.1')
  t.same(early[0].res, { statusCode: 200 })
})

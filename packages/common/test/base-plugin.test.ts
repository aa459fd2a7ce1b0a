import Fastify from 'fastify'
import { test } from 'tap'
import { healthRoutes } from '../src/base-plugin.ts'
import { addMissingSecurityHeaders, apiSecurityHeaders, type SecurityHeaderPolicy } from '../src/security-headers.ts'
import { createFastify } from '../src/server.ts'

const config = { LOG_LEVEL: 'silent', LOG_FORMAT: 'json', TRUST_PROXY: 'false' } as const

const pagePolicy: SecurityHeaderPolicy = {
  baseline: { ...apiSecurityHeaders, 'Referrer-Policy': 'same-origin', 'Cache-Control': 'no-store' },
  noStorePrefixes: ['/api/'],
}

test('the baseline fills what a route left unset; no-store prefixes win over the route', async (t) => {
  const fastify = Fastify({ logger: false })
  t.teardown(() => fastify.close())
  fastify.addHook('onSend', async (request, reply, payload) => {
    addMissingSecurityHeaders(reply, request.url, pagePolicy)
    return payload
  })
  fastify.get('/page', async (_request, reply) => reply.header('Referrer-Policy', 'no-referrer').send('page'))
  fastify.get('/api/cached', async (_request, reply) => reply.header('Cache-Control', 'max-age=60').send({ ok: true }))
  fastify.get('/asset', async (_request, reply) => reply.header('Cache-Control', 'max-age=60').send('asset'))
  const page = await fastify.inject('/page')
  t.equal(page.headers['referrer-policy'], 'no-referrer', 'the route header stays')
  t.equal(page.headers['x-content-type-options'], 'nosniff', 'a missing one is added')
  t.equal(page.headers['cache-control'], 'no-store')
  t.equal((await fastify.inject('/api/cached')).headers['cache-control'], 'no-store', 'under a no-store prefix')
  t.equal((await fastify.inject('/asset')).headers['cache-control'], 'max-age=60', 'elsewhere the route decides')
  const missing = await fastify.inject('/nope')
  t.equal(missing.headers['content-security-policy'], apiSecurityHeaders['Content-Security-Policy'], '404s too')
})

test("Fastify's own errors carry no-store and the service's baseline", async (t) => {
  const fastify = createFastify(config, { messageKey: 'detail', validationStatus: 422, securityHeaders: pagePolicy })
  t.teardown(() => fastify.close())
  fastify.get('/api/items/:id', async () => ({ ok: true }))
  const res = await fastify.inject('/api/items/%ED%A0%80')
  t.equal(res.statusCode, 422)
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['referrer-policy'], 'same-origin', 'the service baseline, not a fixed set')
  t.equal(res.headers['x-frame-options'], 'DENY')
})

test('GET /api/health answers ok and is never cached', async (t) => {
  const fastify = Fastify({ logger: false })
  t.teardown(() => fastify.close())
  await fastify.register(healthRoutes)
  const res = await fastify.inject('/api/health')
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ok: true })
  t.equal(res.headers['cache-control'], 'no-store')
})

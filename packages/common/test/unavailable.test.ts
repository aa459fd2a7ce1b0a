import Fastify from 'fastify'
import { test } from 'tap'
import { documentDatabaseUnavailable } from '../src/unavailable.ts'

const unavailable = { type: 'object', description: 'The database is unreachable.' }
const own503 = { type: 'object', description: 'The index is loading.' }

test('503 is added to the documented responses of database-backed routes only', async (t) => {
  const fastify = Fastify()
  t.teardown(() => fastify.close())
  documentDatabaseUnavailable(fastify, { response: unavailable, databaseFree: ({ url }) => url === '/api/health' })
  const seen = new Map<string, Record<string, unknown> | undefined>()
  fastify.addHook('onRoute', (route) => {
    seen.set(`${route.method} ${route.url}`, (route.schema as { response?: Record<string, unknown> })?.response)
  })
  const ok = { 200: { type: 'object' } }
  fastify.get('/api/things', { schema: { response: ok } }, async () => ({}))
  fastify.post('/api/things', { schema: { response: { ...ok, 503: own503 } } }, async () => ({}))
  fastify.get('/api/health', { schema: { response: ok } }, async () => ({}))
  fastify.get('/api/hidden', { schema: { hide: true, response: ok } }, async () => ({}))
  fastify.get('/api/plain', async () => ({}))
  await fastify.ready()

  t.same(seen.get('GET /api/things'), { ...ok, 503: unavailable })
  t.same(seen.get('POST /api/things')?.[503], own503, 'a route’s own 503 is kept')
  t.same(seen.get('GET /api/health'), ok, 'database-free routes are left alone')
  t.same(seen.get('GET /api/hidden'), ok, 'hidden routes are not documented anyway')
  t.equal(seen.get('GET /api/plain'), undefined, 'a route without response schemas gets none')
})

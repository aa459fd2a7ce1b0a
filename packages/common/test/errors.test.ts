import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import { test } from 'tap'
import { DatabaseUnavailableError } from '../src/db/types.ts'
import { createErrorHandler, createNotFoundHandler, HttpError, tooManyRequests } from '../src/errors.ts'

function app(messageKey: 'error' | 'detail', validationStatus: 400 | 422) {
  const logs: string[] = []
  const fastify = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => logs.push(line) } },
  })
  fastify.setErrorHandler(createErrorHandler({ messageKey, validationStatus }))
  fastify.setNotFoundHandler(createNotFoundHandler(messageKey))
  fastify.get('/items', { schema: { querystring: Type.Object({ page: Type.Integer({ minimum: 1 }) }) } }, async () => ({
    ok: true,
  }))
  fastify.post('/items', { schema: { body: Type.Object({ name: Type.String() }) } }, async () => ({ ok: true }))
  fastify.get('/conflict', async () => {
    throw new HttpError(409, 'Already running.', { 'X-Extra': 'yes' }, { moderationScore: 3 })
  })
  fastify.get('/limited', async () => {
    throw tooManyRequests('Slow down.', 0.2)
  })
  fastify.get('/db-down', async () => {
    throw new DatabaseUnavailableError(new Error('ECONNREFUSED'))
  })
  fastify.get('/crash', async () => {
    throw new Error('secret internal detail')
  })
  return { fastify, logs }
}

test('catalog shape: {error}, validation 400 naming the field', async (t) => {
  const { fastify } = app('error', 400)
  t.teardown(() => fastify.close())
  const bad = await fastify.inject('/items?page=0')
  t.equal(bad.statusCode, 400)
  t.same(bad.json(), { error: "Invalid query parameter 'page': must be >= 1" })
  const missing = await fastify.inject({ method: 'POST', url: '/items', payload: {} })
  t.same(missing.json(), { error: "Invalid body field 'name': is required" })
  const badJson = await fastify.inject({
    method: 'POST',
    url: '/items',
    payload: '{',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(badJson.statusCode, 400)
  t.type(badJson.json().error, 'string')
  const unknown = await fastify.inject('/nope')
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { error: 'Route GET /nope not found.' })
})

test('dashboard shape: {detail}, validation 422', async (t) => {
  const { fastify } = app('detail', 422)
  t.teardown(() => fastify.close())
  const bad = await fastify.inject('/items?page=abc')
  t.equal(bad.statusCode, 422)
  t.match(bad.json(), { detail: /page/ })
  const conflict = await fastify.inject('/conflict')
  t.equal(conflict.statusCode, 409)
  t.same(conflict.json(), { moderationScore: 3, detail: 'Already running.' })
  t.equal(conflict.headers['x-extra'], 'yes')
})

test('with unparsableBodyIsInvalid, a body that is not JSON fails validation with the service status', async (t) => {
  const fastify = Fastify({ logger: false })
  t.teardown(() => fastify.close())
  fastify.setErrorHandler(createErrorHandler({ messageKey: 'detail', validationStatus: 422, unparsableBodyIsInvalid: true }))
  fastify.post('/items', async () => ({ ok: true }))
  const json = { 'content-type': 'application/json' }
  const broken = await fastify.inject({ method: 'POST', url: '/items', payload: '{', headers: json })
  t.equal(broken.statusCode, 422)
  t.match(broken.json(), { detail: /^Invalid body: / })
  const empty = await fastify.inject({ method: 'POST', url: '/items', payload: '', headers: json })
  t.equal(empty.statusCode, 422, 'an empty JSON body too')
  t.match(empty.json(), { detail: /^Invalid body: / })
})

test('429 carries Retry-After of at least one second', async (t) => {
  const { fastify } = app('error', 400)
  t.teardown(() => fastify.close())
  const res = await fastify.inject('/limited')
  t.equal(res.statusCode, 429)
  t.equal(res.headers['retry-after'], '1')
})

test('database outage is a 503 with a clear body', async (t) => {
  const { fastify } = app('error', 400)
  t.teardown(() => fastify.close())
  const res = await fastify.inject('/db-down')
  t.equal(res.statusCode, 503)
  t.match(res.json(), { error: /database is unavailable/ })
})

test('unexpected errors: generic 500, full error logged with the request id', async (t) => {
  const { fastify, logs } = app('detail', 422)
  t.teardown(() => fastify.close())
  const res = await fastify.inject('/crash')
  t.equal(res.statusCode, 500)
  t.same(res.json(), { detail: 'Internal server error.' })
  const entry = logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error')
  t.ok(entry, 'logged')
  t.equal(entry.err.message, 'secret internal detail')
  t.ok(entry.reqId, 'with the request id')
})

import { readFile } from 'node:fs/promises'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import { test } from 'tap'
import { GIPHY_OPENAPI_FILE } from '../../src/giphy/document.ts'
import { memeSchemas } from '../../src/memes/schemas.ts'
import { formatDocument, OPENAPI_FILE } from '../../src/openapi/document.ts'
import { openapiPlugin } from '../../src/openapi/plugin.ts'
import { sharedSchemasPlugin } from '../../src/schemas.ts'
import { build } from '../helper.ts'

type Json = Record<string, any>

test('GET /openapi.json: OpenAPI 3.1.0, version 1.1.0, every public endpoint and status of the spec', async (t) => {
  const app = await build(t)
  const res = await app.inject('/openapi.json')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  const doc = res.json() as Json
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.version, '1.1.0')

  const expected: Record<string, Record<string, string[]>> = {
    '/api/memes': { get: ['200', '400', '429'], post: ['201', '202', '400', '411', '413', '415', '422', '429'] },
    '/api/memes/{id}': { get: ['200', '400', '404', '429'] },
    '/media/{id}': { get: ['200', '404', '429'] },
    '/api/tags': { get: ['200', '429'] },
    '/openapi.json': { get: ['200'] },
    '/meme-api.skill.md': { get: ['200'] },
  }
  for (const [path, methods] of Object.entries(expected)) {
    for (const [method, statuses] of Object.entries(methods)) {
      const op = doc.paths[path]?.[method]
      if (method === 'post' && !op) {
        t.comment('POST /api/memes is not registered in this tree yet')
        continue
      }
      t.ok(op, `${method} ${path}`)
      for (const status of statuses) t.ok(op.responses[status], `${method} ${path} ${status}`)
      t.ok(op.summary && op.tags?.length, `${method} ${path} has summary and tags`)
    }
  }

  const schemas = doc.components.schemas
  for (const name of ['Meme', 'MemeListResponse', 'RateLimit', 'Error', 'UploadQuota', 'MemeAddResponse', 'ModerationRejected']) {
    t.ok(schemas[name], `components.schemas.${name}`)
  }
  const meme = schemas.Meme
  t.same(
    [...meme.required].sort(),
    [
      'byteSize',
      'caption',
      'createdAt',
      'demo',
      'downloadCount',
      'downloadUrl',
      'height',
      'id',
      'mime',
      'moderationReason',
      'moderationScore',
      'originalMime',
      'originalName',
      'status',
      'tags',
      'url',
      'viewCount',
      'width',
    ].sort(),
  )
  t.equal(meme.properties.id.pattern, '^[a-f0-9]{64}$')
  t.equal(meme.properties.caption.maxLength, 2000)
  t.match(meme.properties.tags, { uniqueItems: true, items: { maxLength: 60 } })
  t.match(meme.properties.moderationScore, { minimum: 0, maximum: 100 })
  t.match(meme.properties.width, { minimum: 1 })
  t.match(meme.properties.url, { format: 'uri-reference' })
  t.same([...schemas.MemeListResponse.required].sort(), ['memes', 'page', 'pageSize', 'rateLimit', 'total', 'totalPages'])
  t.same([...schemas.RateLimit.required].sort(), ['limit', 'remaining', 'resetAt'])
  t.same(schemas.Error.required, ['error'])
  t.same([...schemas.UploadQuota.required].sort(), ['remainingDay', 'remainingGlobalDay', 'remainingHour'])
  t.same([...schemas.ModerationRejected.required].sort(), ['error', 'moderationReason', 'moderationScore'])

  const list = doc.paths['/api/memes'].get
  const params = Object.fromEntries(list.parameters.map((p: Json) => [p.name, p]))
  t.match(params.page, { in: 'query', required: false, schema: { minimum: 1, default: 1 } })
  t.match(params.pageSize, { required: false, schema: { minimum: 1, maximum: 48, default: 12 } })
  t.match(params.q, { schema: { maxLength: 200 } })
  t.match(params.tag, { schema: { type: 'array', maxItems: 20, items: { maxLength: 60 } } })
  const memeParams = Object.fromEntries(doc.paths['/api/memes/{id}'].get.parameters.map((p: Json) => [p.name, p]))
  t.match(memeParams.id, { in: 'path', required: true, schema: { pattern: '^[a-f0-9]{64}$' } })
  t.match(memeParams.highlight, { in: 'query', required: false, schema: { type: 'string', maxLength: 200 } })

  for (const [path, op] of [
    ['/api/memes', list],
    ['/api/memes/{id}', doc.paths['/api/memes/{id}'].get],
    ['/api/tags', doc.paths['/api/tags'].get],
    ['/media/{id}', doc.paths['/media/{id}'].get],
  ] as [string, Json][]) {
    for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
      t.ok(op.responses['200'].headers?.[h], `${path} 200 documents ${h}`)
    }
    t.match(op.responses['429'].headers?.['Retry-After'], { schema: { type: 'integer', minimum: 1 } }, `${path} 429 Retry-After`)
    t.match(op.responses['429'].content['application/json'].schema, { $ref: '#/components/schemas/Error' })
  }
  t.match(list.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/MemeListResponse' })
  t.match(doc.paths['/media/{id}'].get.responses['200'].content, { 'image/webp': { schema: { format: 'binary' } } })
  t.ok(doc.paths['/meme-api.skill.md'].get.responses['200'].content['text/markdown'])
  t.notOk(
    Object.keys(doc.paths).some((p) => p.startsWith('/api/admin') || p.startsWith('/docs')),
    'no admin or UI routes',
  )
})

test('routes tagged admin are left out of the public document', async (t) => {
  const fastify = Fastify()
  t.teardown(() => fastify.close())
  await fastify.register(sharedSchemasPlugin, { components: memeSchemas })
  await fastify.register(openapiPlugin)
  const schema = { response: { 200: Type.Object({ ok: Type.Boolean() }) } }
  fastify.get('/api/admin/secret', { schema: { ...schema, summary: 'Admin', tags: ['admin'] } }, async () => ({ ok: true }))
  fastify.get('/api/visible', { schema: { ...schema, summary: 'Visible', tags: ['memes'] } }, async () => ({ ok: true }))
  fastify.get('/untagged', async () => ({ ok: true }))
  await fastify.ready()
  const paths = Object.keys((fastify.swagger() as Json).paths)
  t.same(
    paths.filter((p) => p !== '/openapi.json'),
    ['/api/visible'],
  )
})

test('the committed openapi.json is the document the routes generate (run scripts/export-openapi.ts)', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'none' } })
  const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => '')
  t.equal(committed, formatDocument(app.swagger()), 'services/meme-catalog/openapi.json is up to date')
})

test('the committed openapi.giphy.json is /v1/openapi.json as the routes generate it', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'none' } })
  const committed = await readFile(GIPHY_OPENAPI_FILE, 'utf8').catch(() => '')
  const served = (await app.inject('/v1/openapi.json')).json()
  t.equal(committed, formatDocument(served), 'services/meme-catalog/openapi.giphy.json is up to date')
})

test('/docs serves the interactive reference from local assets', async (t) => {
  const app = await build(t)
  const page = await app.inject('/docs/')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  t.notMatch(page.body, /https?:\/\/(cdn|unpkg|cdnjs)/, 'no CDN')
  const spec = await app.inject('/docs/json')
  t.same(spec.json(), (await app.inject('/openapi.json')).json(), 'the same document')
  // The page would otherwise send this document's address to validator.swagger.io from every visitor's browser.
  const initializer = await app.inject('/docs/static/swagger-initializer.js')
  t.equal(initializer.statusCode, 200)
  t.match(initializer.body, /validatorUrl:\s*null/, 'no outside validator')
})

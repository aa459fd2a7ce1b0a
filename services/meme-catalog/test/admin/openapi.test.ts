import { test } from 'tap'
import { build } from '../helper.ts'

const TOKEN = 'admin-token-0123456789abcdef'

test('GET /admin/openapi.json describes the admin routes only; the public document none of them', async (t) => {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none' } })
  const unauthorized = await app.inject({ url: '/admin/openapi.json' })
  t.equal(unauthorized.statusCode, 401)

  const res = await app.inject({ url: '/admin/openapi.json', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  const doc = res.json()
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.version, '1.1.0')
  t.same(doc.components.securitySchemes, {
    adminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN the service was started with.' },
  })
  t.same(doc.security, [{ adminToken: [] }])
  const operations = Object.entries(doc.paths as Record<string, Record<string, { tags: string[]; responses: object }>>).flatMap(
    ([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  )
  t.same(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort(), [
    'DELETE /api/admin/memes/{id}',
    'DELETE /api/admin/tags/{name}',
    'DELETE /api/admin/tags/{name}/aliases/{alias}',
    'GET /admin/openapi.json',
    'GET /api/admin/memes',
    'GET /api/admin/memes/{id}',
    'GET /api/admin/memes/{id}/media',
    'GET /api/admin/review',
    'GET /api/admin/tag-aliases',
    'GET /api/admin/tags',
    'PATCH /api/admin/memes/{id}',
    'POST /api/admin/memes/{id}/approve',
    'POST /api/admin/memes/{id}/recaption',
    'POST /api/admin/memes/{id}/reject',
    'POST /api/admin/tags',
    'POST /api/admin/tags/{name}/aliases',
  ])
  for (const { path, method, op } of operations) {
    t.same(op.tags, ['admin'], `${method} ${path} is tagged admin`)
    t.ok('401' in op.responses && '429' in op.responses, `${method} ${path} documents 401 and 429`)
  }
  const list = doc.paths['/api/admin/memes'].get
  const item = list.responses['200'].content['application/json'].schema.properties.memes.items
  t.ok(item.properties.nearDuplicateOf && item.properties.phash, 'the listed records carry near-duplicate flags and phash')
  t.same(Object.keys(doc.components.schemas ?? {}), ['Error'], 'only referenced shared schemas are included')

  const pub = (await app.inject({ url: '/openapi.json' })).json()
  const publicPaths = Object.keys(pub.paths)
  t.ok(publicPaths.length > 0)
  t.notOk(
    publicPaths.some((p) => p.includes('admin')),
    'no admin path in the public document',
  )
  t.notMatch(JSON.stringify(pub), /AdminMeme|nearDuplicateOf|\/api\/admin/, 'no admin schema leaks into it')
})

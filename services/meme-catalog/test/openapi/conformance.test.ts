import { type LiveAnswer, operationProblems, redoclyLint, swaggerParserValidate, undocumentedHeaders } from '@app/testing/openapi'
import type { InjectOptions } from 'fastify'
import t, { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'
import { jpegImage, uploadRequest } from '../uploads/fixtures.ts'

type Json = Record<string, any>
const TOKEN = 'conformance-admin-token-5be1c0'

// Redocly's recommended rules we accept as warnings: no license (a private service), and operations that
// cannot fail with a 4xx (health, documents).
const ACCEPTED_WARNINGS = /^warn (info-license|operation-4xx-response):/

// One instance for the whole file (the documents do not depend on the limits the header test lowers).
const app = await build(t, {
  env: { CAPTIONER: 'none', ADMIN_TOKEN: TOKEN, CAPTION_CONCURRENCY: '0', READ_RATE_LIMIT: '3', UPLOAD_QUOTA_HOUR: '1' },
})
const admin = { authorization: `Bearer ${TOKEN}` }
const publicDoc = app.swagger() as Json
const adminDoc = (await app.inject({ url: '/admin/openapi.json', headers: admin })).json() as Json
const giphyDoc = (await app.inject('/v1/openapi.json')).json() as Json

test('the documents (public, admin, GIPHY) pass redocly lint (recommended) and swagger-parser, offline', async (t) => {
  for (const [name, doc] of [
    ['public', publicDoc],
    ['admin', adminDoc],
    ['giphy', giphyDoc],
  ] as const) {
    const lint = await redoclyLint(doc)
    t.equal(lint.errors, 0, `${name}: redocly lint has no errors\n${lint.report}`)
    const unexpected = lint.report.split('\n').filter((line) => line && !ACCEPTED_WARNINGS.test(line))
    t.same(unexpected, [], `${name}: no warning beyond the accepted ones`)
    if (!lint.offline) t.comment('unshare -rn is unavailable: redocly ran with the network reachable')
    await t.resolves(swaggerParserValidate(doc), `${name}: swagger-parser validates it`)
    t.same(operationProblems(doc), [], `${name}: operationId, summary, tags, security and descriptions everywhere`)
  }
})

test('servers, security and the routes the documents leave out', async (t) => {
  const doc = publicDoc
  t.same(doc.servers, [{ url: '/' }])
  t.same(adminDoc.servers, [{ url: '/' }])
  t.match(adminDoc.components.securitySchemes.adminToken, { type: 'http', scheme: 'bearer' })
  for (const [method, path, op] of Object.entries<Json>(doc.paths).flatMap(([p, item]) =>
    Object.entries<Json>(item).map(([m, o]) => [m, p, o] as const),
  )) {
    t.same(op.security, [], `${method} ${path} is public (security: [])`)
  }
  for (const op of Object.values<Json>(adminDoc.paths).flatMap((item) => Object.values<Json>(item))) {
    t.same(op.security, [{ adminToken: [] }], `${op.operationId} needs the admin token`)
  }
  const paths = Object.keys(doc.paths)
  t.notOk(
    paths.some(
      (p) =>
        p === '/' || p.startsWith('/docs') || p.startsWith('/assets') || p.startsWith('/admin') || p.startsWith('/api/admin'),
    ),
    `no page, asset, docs or admin route in the public document: ${paths.join(' ')}`,
  )
  t.same(
    Object.keys(adminDoc.paths).filter((p) => !p.startsWith('/api/admin') && p !== '/admin/openapi.json'),
    [],
  )
  t.equal(doc.paths['/api/memes'].get.operationId, 'listMemes')
  t.equal(doc.paths['/api/memes/{id}'].get.operationId, 'getMeme')
})

test('every header a live answer carries is documented on the response that sent it', async (t) => {
  await ready(app)
  const id = await addMeme(app, { caption: 'documented headers', tags: ['cats'] })
  const none = '0'.repeat(64)
  const doc = publicDoc
  const cases: [operation: [string, string], request: InjectOptions, status: number, document?: Json][] = [
    [['get', '/api/memes'], { url: '/api/memes', remoteAddress: '192.0.2.1' }, 200],
    [['get', '/api/memes'], { url: '/api/memes?q=%21%21%21', remoteAddress: '192.0.2.2' }, 400],
    [['get', '/api/memes/{id}'], { url: `/api/memes/${id}`, remoteAddress: '192.0.2.3' }, 200],
    [['get', '/api/memes/{id}'], { url: `/api/memes/${none}`, remoteAddress: '192.0.2.4' }, 404],
    [['get', '/api/tags'], { url: '/api/tags', remoteAddress: '192.0.2.5' }, 200],
    [['get', '/media/{id}'], { url: `/media/${id}` }, 200],
    [['get', '/media/{id}'], { url: `/media/${id}?download=1` }, 200],
    [['get', '/media/{id}'], { url: `/media/${id}`, headers: { 'if-none-match': `"${id}"` } }, 304],
    [['get', '/media/{id}'], { url: `/media/${none}` }, 404],
    [['get', '/openapi.json'], { url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } }, 200],
    [['get', '/meme-api.skill.md'], { url: '/meme-api.skill.md' }, 200],
    [['get', '/api/health'], { url: '/api/health' }, 200],
    [
      ['post', '/api/memes'],
      { ...uploadRequest(await jpegImage(41), { contentType: 'image/jpeg', filename: 'a.jpg' }), remoteAddress: '192.0.2.9' },
      201,
    ],
    [
      ['post', '/api/memes'],
      { ...uploadRequest(await jpegImage(42), { contentType: 'image/jpeg', filename: 'b.jpg' }), remoteAddress: '192.0.2.9' },
      429,
    ],
    [['post', '/api/memes'], { ...uploadRequest(Buffer.from('GIF89a-not-an-image')), remoteAddress: '192.0.2.10' }, 415],
    [['get', '/api/admin/tags'], { url: '/api/admin/tags', headers: admin }, 200, adminDoc],
    [['get', '/api/admin/tags'], { url: '/api/admin/tags' }, 401, adminDoc],
    [['get', '/api/admin/memes/{id}'], { url: `/api/admin/memes/${none}`, headers: admin }, 404, adminDoc],
    [['get', '/admin/openapi.json'], { url: '/admin/openapi.json', headers: admin }, 200, adminDoc],
    [['get', '/media/{id}/{rendition}'], { url: `/media/${id}/fixed_width` }, 200],
    [
      ['get', '/media/{id}/{rendition}'],
      { url: `/media/${id}/fixed_width`, headers: { 'if-none-match': `"${id}-fixed_width"` } },
      304,
    ],
    [['get', '/media/{id}/{rendition}'], { url: `/media/${id}/fixed_width_large` }, 404],
    [['get', '/v1/gifs/search'], { url: '/v1/gifs/search?q=documented', remoteAddress: '192.0.2.20' }, 200, giphyDoc],
    [['get', '/v1/gifs/search'], { url: '/v1/gifs/search?q=a&limit=0', remoteAddress: '192.0.2.21' }, 400, giphyDoc],
    [['get', '/v1/gifs/search'], { url: `/v1/gifs/search?q=${'a'.repeat(51)}`, remoteAddress: '192.0.2.22' }, 414, giphyDoc],
    [['get', '/v1/gifs/trending'], { url: '/v1/gifs/trending', remoteAddress: '192.0.2.23' }, 200, giphyDoc],
    [['get', '/v1/gifs/random'], { url: '/v1/gifs/random?tag=cats', remoteAddress: '192.0.2.24' }, 200, giphyDoc],
    [['get', '/v1/gifs/search/tags'], { url: '/v1/gifs/search/tags?q=doc', remoteAddress: '192.0.2.25' }, 200, giphyDoc],
    [['get', '/v1/gifs/{gif_id}'], { url: `/v1/gifs/${id}`, remoteAddress: '192.0.2.26' }, 200, giphyDoc],
    [['get', '/v1/gifs/{gif_id}'], { url: `/v1/gifs/${none}`, remoteAddress: '192.0.2.26' }, 404, giphyDoc],
    [['get', '/v1/gifs'], { url: `/v1/gifs?ids=${id}`, remoteAddress: '192.0.2.27' }, 200, giphyDoc],
    [['get', '/v1/openapi.json'], { url: '/v1/openapi.json' }, 200, giphyDoc],
  ]
  const answers: { doc: Json; answer: LiveAnswer }[] = []
  for (const [operation, request, status, document = doc] of cases) {
    const res = await app.inject(request)
    t.equal(
      res.statusCode,
      status,
      `${operation.join(' ')} → ${status}: ${res.statusCode === status ? '' : res.body.slice(0, 200)}`,
    )
    answers.push({ doc: document, answer: { operation, status: res.statusCode, headers: res.headers } })
  }
  // The read budget of one address, spent: the 429 and its Retry-After.
  let limited: LiveAnswer | undefined
  for (let i = 0; i < 5 && !limited; i++) {
    const res = await app.inject({ url: '/api/tags', remoteAddress: '198.51.100.7' })
    if (res.statusCode === 429) limited = { operation: ['get', '/api/tags'], status: 429, headers: res.headers }
  }
  t.ok(limited, 'the read limit was reached')
  if (limited) answers.push({ doc, answer: limited })
  let giphyLimited: LiveAnswer | undefined
  for (let i = 0; i < 5 && !giphyLimited; i++) {
    const res = await app.inject({ url: '/v1/gifs/trending', remoteAddress: '198.51.100.8' })
    if (res.statusCode === 429) giphyLimited = { operation: ['get', '/v1/gifs/trending'], status: 429, headers: res.headers }
  }
  t.ok(giphyLimited, 'the read limit was reached on /v1 too')
  if (giphyLimited) answers.push({ doc: giphyDoc, answer: giphyLimited })
  const missing = answers.flatMap(({ doc, answer }) => undocumentedHeaders(doc, [answer]))
  t.same(missing, [], 'no header is sent that its response does not document')
  t.ok(doc.paths['/api/memes'].post.responses['429'].headers['Retry-After'], 'upload 429 documents Retry-After')
  t.ok(doc.paths['/media/{id}'].get.responses['200'].headers.ETag, 'media documents ETag')
})

import type { InjectOptions } from 'fastify'
import { type Test, test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'
import { BOUNDARY, multipart } from '../uploads/fixtures.ts'

/** A short, printable view of an answer for assertion messages (images stay out of the TAP output). */
function preview(res: { headers: Record<string, unknown>; body: string }): string {
  const type = String(res.headers['content-type'] ?? '')
  return /json|text/.test(type) ? res.body.slice(0, 120) : `<${type || 'no type'}, ${res.body.length} chars>`
}

// test/web/routes.test.ts covers the full page policy of GET / and GET /admin (200); this file covers every
// other answer: pages with queries, 304s, /docs, error pages, 404s and the JSON, media and discovery routes.

const TOKEN = 'headers-test-admin-token-9d2f'
type Res = { statusCode: number; headers: Record<string, unknown> }

/** The policy that governs scripts: script-src if present, else default-src (CSP fallback rule). */
function scriptPolicy(csp: string): string | undefined {
  const directives = csp.split(';').map((d) => d.trim())
  return directives.find((d) => d.startsWith('script-src ')) ?? directives.find((d) => d.startsWith('default-src '))
}

/** The four headers every answer must carry, whatever its status or type. */
function checkHeaders(t: Test, res: Res, label: string) {
  t.test(`${label} → ${res.statusCode}`, async (t) => {
    const csp = String(res.headers['content-security-policy'] ?? '')
    t.ok(csp, 'Content-Security-Policy present')
    const scripts = scriptPolicy(csp)
    t.ok(scripts, 'the CSP governs scripts (script-src or default-src)')
    t.notMatch(scripts ?? '', /unsafe-inline|unsafe-eval|\s\*(\s|$)/, 'no inline script, eval or wildcard')
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    const framing =
      /frame-ancestors '(none|self)'/.test(csp) || /^(DENY|SAMEORIGIN)$/i.test(String(res.headers['x-frame-options']))
    t.ok(framing, 'frame protection (frame-ancestors or X-Frame-Options)')
    t.match(String(res.headers['referrer-policy'] ?? ''), /^(no-referrer|same-origin|strict-origin(-when-cross-origin)?)$/)
  })
}

test('every HTML page, including its 304 and query variants, carries the security headers', async (t) => {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none' } })
  const pages = ['/', '/?q=cat&tag=dogs&page=2', `/?meme=${'a'.repeat(64)}`, '/admin', '/admin?status=pending', '/docs', '/docs/']
  for (const url of pages) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^text\/html/, `${url} is a page`)
    checkHeaders(t, res, `GET ${url}`)
    if (res.headers.etag) {
      // A revalidation answer must not drop the policy (a cached page is shown under the 304's headers).
      const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(res.headers.etag) } })
      t.equal(again.statusCode, 304, `${url} revalidates`)
      checkHeaders(t, again, `GET ${url} (304)`)
    }
  }
  // The Swagger UI shell: its own assets are served under /docs/static.
  const docs = await app.inject({ method: 'GET', url: '/docs/' })
  const scripts = [...docs.body.matchAll(/src="([^"]+\.js)"/g)].map((m) => new URL(m[1], 'http://x/docs/').pathname)
  t.ok(scripts.length > 0, 'the docs page loads scripts from files')
  for (const url of scripts) checkHeaders(t, await app.inject({ method: 'GET', url }), `GET ${url}`)
})

test('API answers, errors and 404s carry the security headers too', async (t) => {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none', READ_RATE_LIMIT: '50', MEDIA_RATE_LIMIT: '50' } })
  await ready(app)
  const id = await addMeme(app, { caption: 'header check', tags: ['cats'] })
  const admin = { authorization: `Bearer ${TOKEN}` }
  const none = '0'.repeat(64)
  const cases: [string, InjectOptions, number][] = [
    ['list', { url: '/api/memes' }, 200],
    ['search', { url: '/api/memes?q=header' }, 200],
    ['bad query', { url: '/api/memes?q=%21%21%21' }, 400],
    ['one meme', { url: `/api/memes/${id}` }, 200],
    ['unknown meme', { url: `/api/memes/${none}` }, 404],
    ['tags', { url: '/api/tags' }, 200],
    ['media', { url: `/media/${id}` }, 200],
    ['media download', { url: `/media/${id}?download=1` }, 200],
    ['media 304', { url: `/media/${id}`, headers: { 'if-none-match': `"${id}"` } }, 304],
    ['unknown media', { url: `/media/${none}` }, 404],
    ['malformed media id', { url: '/media/not-an-id' }, 404],
    ['openapi', { url: '/openapi.json' }, 200],
    ['skill', { url: '/meme-api.skill.md' }, 200],
    ['health', { url: '/api/health' }, 200],
    ['unknown route', { url: '/no/such/page' }, 404],
    ['unknown asset', { url: '/assets/000000000000/js/main.js' }, 404],
    ['wrong method', { method: 'PUT', url: '/api/memes' }, 404],
    ['admin without token', { url: '/api/admin/tags' }, 401],
    ['admin with token', { url: '/api/admin/tags', headers: admin }, 200],
    ['admin openapi', { url: '/admin/openapi.json', headers: admin }, 200],
    ['admin unknown meme', { url: `/api/admin/memes/${none}`, headers: admin }, 404],
    ['admin bad body', { method: 'POST', url: '/api/admin/tags', headers: admin, payload: { name: '' } }, 400],
    [
      'upload without a file',
      {
        method: 'POST',
        url: '/api/memes',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        payload: multipart([{ name: 'other', data: 'x' }]),
      },
      400,
    ],
    ['upload not an image', uploadOf(Buffer.from('GIF89a-not-a-png')), 415],
    [
      'preflight',
      { method: 'OPTIONS', url: '/api/memes', headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } },
      204,
    ],
  ]
  for (const [label, request, status] of cases) {
    const res = await app.inject(request)
    t.equal(res.statusCode, status, `${label}: ${preview(res)}`)
    checkHeaders(t, res, label)
  }
  // Answered by @app/common's frameworkErrors before any route or hook runs: that handler sets the headers itself.
  for (const [label, url, status] of [
    ['undecodable URL', '/api/memes/%E0%A4%A', 400],
    ['over-long path parameter', `/media/${'a'.repeat(200)}`, 414],
  ] as const) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, status, `${label}: ${preview(res)}`)
    t.type(res.json().error, 'string', `${label}: the error shape holds`)
    checkHeaders(t, res, label)
  }
  // A spent read budget: the 429 is an API answer like any other.
  let limited: Res | undefined
  for (let i = 0; i < 60 && !limited; i++) {
    const res = await app.inject({ url: '/api/tags', remoteAddress: '198.51.100.7' })
    if (res.statusCode === 429) limited = res
  }
  t.ok(limited, 'the read limit was reached')
  if (limited) checkHeaders(t, limited, '429')
})

function uploadOf(bytes: Buffer) {
  return {
    method: 'POST' as const,
    url: '/api/memes',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipart([{ name: 'meme', filename: 'x.png', contentType: 'image/png', data: bytes }]),
  }
}

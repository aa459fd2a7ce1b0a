import { test } from 'tap'
import { build } from '../helper.ts'

test('public reads answer any origin and expose the rate-limit headers', async (t) => {
  const app = await build(t)
  const res = await app.inject({ url: '/api/memes', headers: { origin: 'https://elsewhere.example' } })
  t.equal(res.headers['access-control-allow-origin'], '*')
  const exposed = String(res.headers['access-control-expose-headers']).toLowerCase()
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) t.match(exposed, h)
  const media = await app.inject({ url: `/media/${'a'.repeat(64)}`, headers: { origin: 'https://x.example' } })
  t.equal(media.headers['access-control-allow-origin'], '*', 'on a 404 too')
})

test('uploads cross-origin only from CORS_UPLOAD_ORIGINS', async (t) => {
  const app = await build(t, { env: { CORS_UPLOAD_ORIGINS: 'https://upload.example, https://other.example/' } })
  const preflight = (origin: string, method: string) =>
    app.inject({
      method: 'OPTIONS',
      url: '/api/memes',
      headers: { origin, 'access-control-request-method': method },
    })
  const allowed = await preflight('https://upload.example', 'POST')
  t.equal(allowed.headers['access-control-allow-origin'], 'https://upload.example')
  t.match(String(allowed.headers['access-control-allow-methods']), 'POST')
  t.equal((await preflight('https://other.example', 'POST')).headers['access-control-allow-origin'], 'https://other.example')
  const refused = await preflight('https://evil.example', 'POST')
  t.equal(refused.statusCode, 204, 'refused with a bare 204, not a 404')
  t.same(
    Object.keys(refused.headers).filter((h) => h.startsWith('access-control-')),
    [],
    'refused: no allow header at all',
  )
  t.equal((await preflight('https://evil.example', 'GET')).headers['access-control-allow-origin'], '*', 'reads from anywhere')
  const post = await app.inject({ method: 'POST', url: '/api/memes', headers: { origin: 'https://evil.example' } })
  t.equal(post.headers['access-control-allow-origin'], undefined, 'no CORS header on a foreign upload')
})

test('without CORS_UPLOAD_ORIGINS no origin may upload cross-origin', async (t) => {
  const app = await build(t)
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/api/memes',
    headers: { origin: 'https://upload.example', 'access-control-request-method': 'POST' },
  })
  t.equal(res.headers['access-control-allow-origin'], undefined)
  t.equal(res.statusCode, 204, 'a refused preflight is a 204 without allow headers')
  const admin = await app.inject({
    method: 'OPTIONS',
    url: '/api/admin/tags',
    headers: { origin: 'https://upload.example', 'access-control-request-method': 'GET' },
  })
  t.equal(admin.statusCode, 204, 'the admin API refuses cross-origin the same way')
  t.same(
    Object.keys(admin.headers).filter((h) => h.startsWith('access-control-')),
    [],
  )
})

test('CORS follows the route the request matched, not the raw URL', async (t) => {
  const app = await build(t, {
    env: { CORS_UPLOAD_ORIGINS: 'https://upload.example', ADMIN_TOKEN: 'cors-admin-token-0123456789' },
  })
  const origin = 'https://evil.example'
  const adminTags = await app.inject({ url: '/api/%61dmin/tags', headers: { origin } })
  t.equal(adminTags.statusCode, 401, 'the encoded path reaches the admin route')
  t.equal(adminTags.headers['access-control-allow-origin'], undefined, 'no CORS on an encoded admin path')
  const upload = await app.inject({ method: 'POST', url: '/api/meme%73', headers: { origin } })
  t.equal(upload.headers['access-control-allow-origin'], undefined, 'no CORS on an encoded upload path')
  for (const [url, method] of [
    ['/api/%61dmin/tags', 'GET'],
    ['/api/meme%73', 'POST'],
  ]) {
    const preflight = await app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method } })
    t.equal(preflight.headers['access-control-allow-origin'], undefined, `no preflight grant for ${method} ${url}`)
  }
  const allowed = await app.inject({
    method: 'OPTIONS',
    url: '/api/meme%73',
    headers: { origin: 'https://upload.example', 'access-control-request-method': 'POST' },
  })
  t.equal(allowed.headers['access-control-allow-origin'], 'https://upload.example', 'a listed origin still may upload')
})

import { loadConfig } from '@app/common'
import { test } from 'tap'
import { configSchema } from '../../src/config.ts'
import { build } from '../helper.ts'

const TOKEN = 'admin-token-0123456789abcdef'
const env = { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none' }

test('without ADMIN_TOKEN every admin route answers 404', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'none' } })
  const auth = { authorization: `Bearer ${TOKEN}` }
  for (const [method, url] of [
    ['GET', '/api/admin/memes'],
    ['GET', '/api/admin/tags'],
    ['POST', '/api/admin/tags'],
    ['DELETE', '/api/admin/tags/cats'],
    ['POST', `/api/admin/memes/${'a'.repeat(64)}/approve`],
    ['PATCH', `/api/admin/memes/${'a'.repeat(64)}`],
    ['GET', '/admin/openapi.json'],
  ] as const) {
    const res = await app.inject({ method, url, headers: auth, payload: method === 'GET' ? undefined : {} })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.type(res.json().error, 'string')
  }
})

test('a wrong or missing token is 401; the right one passes', async (t) => {
  const app = await build(t, { env })
  const cases: [string | undefined, number][] = [
    [undefined, 401],
    ['', 401],
    ['Bearer', 401],
    ['Bearer ', 401],
    [`Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}`, 401],
    [`Bearer ${TOKEN}x`, 401],
    [`Bearer ${TOKEN.slice(0, -1)}`, 401],
    [`Bearer ${TOKEN} extra`, 401],
    [`Bearer ${TOKEN}`, 200],
    [`bearer ${TOKEN}`, 200],
  ]
  for (const [header, status] of cases) {
    const res = await app.inject({ url: '/api/admin/tags', headers: header === undefined ? {} : { authorization: header } })
    t.equal(res.statusCode, status, `Authorization: ${header === undefined ? '(none)' : header.replace(TOKEN, '<token>')}`)
    if (status === 401) {
      t.match(res.json(), { error: /admin token/ })
      t.match(res.headers['www-authenticate'], /^Bearer /)
      t.notMatch(res.body, TOKEN)
    }
  }
})

test('admin requests are rate-limited per IP, failed ones included', async (t) => {
  const app = await build(t, { env: { ...env, ADMIN_RATE_LIMIT: '3' } })
  const wrong = { authorization: 'Bearer wrong-token-wrong-token' }
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ url: '/api/admin/tags', headers: wrong })
    t.equal(res.statusCode, 401)
    t.equal(res.headers['ratelimit-limit'], '3')
    t.equal(res.headers['ratelimit-remaining'], String(2 - i))
  }
  const spent = await app.inject({ url: '/api/admin/tags', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(spent.statusCode, 429, 'once spent, even the right token waits')
  t.type(spent.json().error, 'string')
  t.ok(Number(spent.headers['retry-after']) >= 1, 'Retry-After >= 1')
  const other = await app.inject({
    url: '/api/admin/tags',
    headers: { authorization: `Bearer ${TOKEN}` },
    remoteAddress: '10.0.0.9',
  })
  t.equal(other.statusCode, 200, 'another IP has its own budget')
})

test('an ADMIN_TOKEN shorter than 16 characters is refused at start-up', async (t) => {
  t.throws(() => loadConfig(configSchema, { ADMIN_TOKEN: 'short' }), /ADMIN_TOKEN is invalid/)
  t.doesNotThrow(() => loadConfig(configSchema, { ADMIN_TOKEN: TOKEN }))
})

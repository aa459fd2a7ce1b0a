import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { build, login } from './helper.ts'

const app = await build(t)
const cookie = await login(app)
const { test } = t

test('history answers go out compressed (br, else gzip) and stay no-store', async (t) => {
  // A day of 15 s samples: a large answer.
  await app.db.query(
    `INSERT INTO metrics (sampled_at, height, mempool_tx, wallet_balance)
     SELECT now() - make_interval(secs => 15 * i), i, i * 2, NULL FROM generate_series(0, 5759) AS i`,
  )
  const url = '/api/dashboard/history?window=all&limit=2000'
  const plain = await app.inject({ url, headers: { cookie } })
  t.equal(plain.statusCode, 200)
  t.equal(plain.headers['content-encoding'], undefined, 'uncompressed without Accept-Encoding')
  const br = await app.inject({ url, headers: { cookie, 'accept-encoding': 'gzip, deflate, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(br.headers['cache-control'], 'no-store')
  t.match(String(br.headers.vary), /accept-encoding/i)
  const body = brotliDecompressSync(br.rawPayload).toString()
  t.equal(body, plain.body, 'the same JSON')
  t.ok(br.rawPayload.length < plain.rawPayload.length / 2, `${br.rawPayload.length} of ${plain.rawPayload.length} bytes`)
  const gzip = await app.inject({ url, headers: { cookie, 'accept-encoding': 'gzip' } })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(gunzipSync(gzip.rawPayload).toString(), plain.body)
})

test('the OpenAPI document and the web app’s script are compressed too; assets stay no-store', async (t) => {
  const shell = (await app.inject({ url: '/' })).body
  const script = /\/static\/assets\/[\w.-]+\.js/.exec(shell)?.[0]
  t.ok(script, 'the shell names its script')
  for (const url of ['/openapi.json', script as string]) {
    const res = await app.inject({ url, headers: { 'accept-encoding': 'br' } })
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['content-encoding'], 'br', url)
  }
  const asset = await app.inject({ url: script as string, headers: { 'accept-encoding': 'gzip' } })
  t.equal(asset.headers['cache-control'], 'no-store', 'the spec’s no-store on /static/ stays')
})

test('a cross-origin preflight is refused with 204 and no allow header (the dashboard is same-origin only)', async (t) => {
  for (const [url, method] of [
    ['/api/settings', 'PUT'],
    ['/api/auth/login', 'POST'],
    ['/api/health', 'GET'],
  ] as const) {
    const res = await app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': method },
    })
    t.equal(res.statusCode, 204, `${method} ${url}`)
    t.same(
      Object.keys(res.headers).filter((h) => h.startsWith('access-control-')),
      [],
      `${method} ${url}: no allow header`,
    )
  }
})

test('the request id is echoed: a valid X-Request-Id comes back, an invalid one is replaced', async (t) => {
  const mine = await app.inject({ url: '/api/auth/me', headers: { 'x-request-id': 'dash-1234' } })
  t.equal(mine.headers['x-request-id'], 'dash-1234')
  const refused = await app.inject({ url: '/api/auth/me', headers: { 'x-request-id': 'a b' } })
  t.match(String(refused.headers['x-request-id']), /^[0-9a-f-]{36}$/)
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  for (const [path, operations] of Object.entries<Record<string, { responses: Record<string, { headers?: object }> }>>(
    doc.paths,
  )) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        t.ok(response.headers && 'X-Request-Id' in response.headers, `${method} ${path} ${status} documents X-Request-Id`)
      }
    }
  }
})

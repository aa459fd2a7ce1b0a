import t from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

type Json = Record<string, any>

t.test('GIPHY_API_KEYS: only listed keys are served; others get GIPHY’s 401 body', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'none', GIPHY_API_KEYS: 'key-one, key-two' } })
  await ready(app)
  const id = await addMeme(app, { caption: 'keyed meme' })
  for (const url of [
    '/v1/gifs/trending',
    '/v1/gifs/trending?api_key=',
    '/v1/gifs/trending?api_key=key-three',
    `/v1/gifs/${id}?api_key=KEY-ONE`,
  ]) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 401, url)
    t.same(res.json(), { data: [], meta: { status: 401, msg: 'Unauthorized', response_id: '' } }, url)
    t.equal(res.headers['cache-control'], 'no-store')
  }
  for (const key of ['key-one', 'key-two']) {
    const res = await app.inject(`/v1/gifs/${id}?api_key=${key}`)
    t.equal(res.statusCode, 200, key)
    t.equal((res.json() as Json).data.id, id)
  }
  const doc = await app.inject('/v1/openapi.json')
  t.equal(doc.statusCode, 200, 'the document needs no key')
})

t.test('without GIPHY_API_KEYS any api_key, or none, is served', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'none' } })
  await ready(app)
  t.equal((await app.inject('/v1/gifs/trending')).statusCode, 200)
  t.equal((await app.inject('/v1/gifs/trending?api_key=whatever')).statusCode, 200)
})

t.test('rate limits: per address (the read budget) and per api_key; 429 in GIPHY’s body', async (t) => {
  const app = await build(t, {
    env: { CAPTIONER: 'none', READ_RATE_LIMIT: '3', GIPHY_KEY_RATE_LIMIT: '4', RATE_LIMIT_WINDOW_SECONDS: '3600' },
  })
  await ready(app)
  // The address budget is the catalog's read budget, shared with /api/memes.
  const address = { remoteAddress: '198.51.100.1' }
  t.equal((await app.inject({ url: '/api/memes', ...address })).statusCode, 200)
  t.equal((await app.inject({ url: '/v1/gifs/trending', ...address })).statusCode, 200)
  const last = await app.inject({ url: '/v1/gifs/trending', ...address })
  t.equal(last.statusCode, 200)
  t.equal(last.headers['ratelimit-remaining'], '0')
  const limited = await app.inject({ url: '/v1/gifs/trending', ...address })
  t.equal(limited.statusCode, 429)
  t.same(limited.json(), { data: [], meta: { status: 429, msg: 'API rate limit exceeded', response_id: '' } })
  t.ok(Number(limited.headers['retry-after']) >= 1, 'Retry-After')

  // One key from many addresses: its own budget of 4, reported when it is the tighter one.
  const statuses: number[] = []
  const remaining: string[] = []
  for (let i = 0; i < 5; i++) {
    const res = await app.inject({ url: '/v1/gifs/trending?api_key=shared', remoteAddress: `198.51.100.${10 + i}` })
    statuses.push(res.statusCode)
    remaining.push(String(res.headers['ratelimit-remaining']))
  }
  t.same(statuses, [200, 200, 200, 200, 429], 'the fifth request of the key is refused though each address is fresh')
  t.same(remaining, ['2', '2', '1', '0', '0'], 'the tighter budget in RateLimit-Remaining')
  const other = await app.inject({ url: '/v1/gifs/trending?api_key=other', remoteAddress: '198.51.100.30' })
  t.equal(other.statusCode, 200, 'another key has its own budget')
  const limitedKey = await app.inject({ url: '/v1/gifs/trending?api_key=shared', remoteAddress: '198.51.100.31' })
  t.match(limitedKey.json(), { meta: { status: 429, msg: 'API rate limit exceeded' } })
})

t.test('api_key never reaches the log', async (t) => {
  const lines: string[] = []
  const { Writable } = await import('node:stream')
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const { buildApp } = await import('../../src/app.ts')
  const { loadConfig } = await import('@app/common')
  const { configSchema } = await import('../../src/config.ts')
  const { createTestDatabase } = await import('@app/testing')
  const database = await createTestDatabase()
  const app = buildApp(
    loadConfig(configSchema, {
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      DEMO_MEMES: 'false',
      CAPTIONER: 'none',
      DATA_DIR: database.dataDir,
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      GIPHY_API_KEYS: 'sekrit-giphy-key',
    }),
    { log: { stream } },
  )
  t.teardown(async () => {
    await app.close()
    await database.cleanup()
  })
  await app.ready()
  await app.inject('/v1/gifs/trending?api_key=sekrit-giphy-key&limit=2')
  await app.inject('/v1/gifs/trending?limit=2&api_key=wrong-giphy-key')
  const text = lines.join('')
  t.match(text, /GET \/v1\/gifs\/trending\?api_key=\[redacted\]&limit=2 200/, 'the request line, key redacted')
  t.notMatch(text, /sekrit-giphy-key|wrong-giphy-key/, 'no key anywhere in the log')
})

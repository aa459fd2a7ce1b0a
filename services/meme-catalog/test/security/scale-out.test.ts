import { eventually, redisReachable } from '@app/testing'
import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'
import { pngImage, uploadRequest } from '../uploads/fixtures.ts'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const ADMIN_TOKEN = 'scale-out-admin-token-5c8e2a'

const redisUp = await redisReachable(REDIS_URL)
if (!redisUp) console.log(`# NOTICE: Redis not reachable at ${REDIS_URL}; the shared read-limit test is skipped`)

const octet = () => 1 + Math.floor(Math.random() * 250)
const randomIp = () => `10.${octet()}.${octet()}.${octet()}`

/** Only the documented error shape: one string field. */
const onlyError = (body: unknown) =>
  typeof body === 'object' &&
  body !== null &&
  Object.keys(body).length === 1 &&
  typeof (body as { error?: unknown }).error === 'string'

test('with Redis, the per-IP read limit holds across two instances', {
  skip: redisUp ? false : `Redis not reachable at ${REDIS_URL}`,
}, async (t) => {
  const N = 6
  const env = { REDIS_URL, READ_RATE_LIMIT: String(N), RATE_LIMIT_WINDOW_SECONDS: '60', CAPTIONER: 'none' }
  const a = await build(t, { env })
  const b = await build(t, { shareWith: a, env })
  await ready(a)
  await ready(b)
  const id = await addMeme(a, { caption: 'shared budget' })
  // The limiter has no key prefix: a random client address per run keeps runs apart in the shared Redis.
  const ip = randomIp()
  // Fixed windows: start right after a boundary if this one ends soon, so all N + 2 hits fall in one window.
  const probe = await a.inject({ url: '/api/tags', remoteAddress: randomIp() })
  const left = Date.parse(String(probe.headers['ratelimit-reset'])) - Date.now()
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50))

  const urls = ['/api/memes', '/api/tags', `/api/memes/${id}`, '/api/memes?q=shared']
  let resetAt: string | undefined
  for (let i = 0; i < N; i++) {
    const app = i % 2 === 0 ? a : b
    const res = await app.inject({ url: urls[i % urls.length], remoteAddress: ip })
    t.equal(res.statusCode, 200, `hit ${i + 1} on ${app === a ? 'A' : 'B'}`)
    t.equal(res.headers['ratelimit-remaining'], String(N - 1 - i), 'the count is shared: remaining falls across both')
    t.equal(res.json().rateLimit.remaining, N - 1 - i, 'body and header agree')
    resetAt ??= String(res.headers['ratelimit-reset'])
    t.equal(res.headers['ratelimit-reset'], resetAt, 'one window for both')
  }
  for (const [name, app] of [
    ['A', a],
    ['B', b],
  ] as const) {
    const limited = await app.inject({ url: '/api/memes', remoteAddress: ip })
    t.equal(limited.statusCode, 429, `the next read on ${name} is refused`)
    t.ok(onlyError(limited.json()), `${name}: body is {"error"}: ${limited.body}`)
    t.match(limited.json().error, /Rate limit exceeded/)
    const retryAfter = Number(limited.headers['retry-after'])
    t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${name}: Retry-After ${retryAfter}`)
    t.equal(limited.headers['ratelimit-limit'], String(N))
    t.equal(limited.headers['ratelimit-remaining'], '0')
    t.equal(limited.headers['ratelimit-reset'], resetAt)
  }
  const other = await b.inject({ url: '/api/memes', remoteAddress: randomIp() })
  t.equal(other.statusCode, 200, 'another address keeps its own budget')
  const media = await a.inject({ url: `/media/${id}`, remoteAddress: ip })
  t.equal(media.statusCode, 200, 'media reads have their own budget')
})

test('two instances on one database: the upload quota holds across both; an approval on A is found on B', async (t) => {
  // Review score 0: every upload waits for an admin, so the approval is what publishes it.
  const env = { ADMIN_TOKEN, CAPTIONER: 'none', CAPTION_CONCURRENCY: '0', MODERATION_REVIEW_SCORE: '0', UPLOAD_QUOTA_HOUR: '2' }
  const a = await build(t, { env })
  const b = await build(t, { shareWith: a, env })
  await ready(a)
  await ready(b)
  const ip = '192.0.2.77'

  // (b) Quota 2, uploads alternated A, B, A, B from one address.
  const first = await a.inject(uploadRequest(await pngImage(501), { ip }))
  t.equal(first.statusCode, 202, first.body)
  t.equal(first.json().quota.remainingHour, 1)
  const second = await b.inject(uploadRequest(await pngImage(502), { ip }))
  t.equal(second.statusCode, 202, second.body)
  t.equal(second.json().quota.remainingHour, 0, 'B sees the upload charged through A')
  for (const [name, app, seed] of [
    ['A', a, 503],
    ['B', b, 504],
  ] as const) {
    const refused = await app.inject(uploadRequest(await pngImage(seed), { ip }))
    t.equal(refused.statusCode, 429, `upload 3+ on ${name} is refused`)
    t.ok(onlyError(refused.json()), `${name}: body is {"error"}: ${refused.body}`)
    t.match(refused.json().error, /2 uploads per hour/)
    t.ok(Number(refused.headers['retry-after']) >= 1, `${name}: Retry-After ${refused.headers['retry-after']}`)
  }
  const { rows } = await a.db.query<{ n: number }>('SELECT count(*)::int AS n FROM memes')
  t.equal(Number(rows[0].n), 2, 'no third meme was stored by either instance')
  const elsewhere = await b.inject(uploadRequest(await pngImage(505), { ip: '192.0.2.78' }))
  t.equal(elsewhere.statusCode, 202, 'another address still has its quota')

  // (c) test/search/sync.test.ts proves readModel.memeChanged reaches another instance within a second; this is the
  // admin approve route end to end: approved through A, searchable through B, polled for at most one second.
  const id = first.json().meme.id as string
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const patch = await a.inject({
    method: 'PATCH',
    url: `/api/admin/memes/${id}`,
    headers: auth,
    payload: { caption: 'wombat juggling pineapples' },
  })
  t.equal(patch.statusCode, 200, patch.body)
  const search = async () => (await b.inject({ url: '/api/memes?q=wombat', remoteAddress: '192.0.2.90' })).json()
  t.equal((await search()).total, 0, 'pending: not searchable on B')
  const approved = await a.inject({ method: 'POST', url: `/api/admin/memes/${id}/approve`, headers: auth })
  t.equal(approved.statusCode, 200, approved.body)
  t.equal(approved.json().meme.status, 'approved')
  await eventually(async () => (await search()).memes.some((m: { id: string }) => m.id === id), {
    timeoutMs: 1000,
    intervalMs: 20,
  })
  t.pass('found through B within one second')
  t.equal((await b.inject(`/api/memes/${id}`)).statusCode, 200, 'and readable through B')
})

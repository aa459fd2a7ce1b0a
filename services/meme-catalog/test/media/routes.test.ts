import { eventually } from '@app/testing'
import sharp from 'sharp'
import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready, webpBytes } from '../memes/fixtures.ts'

// Counters are flushed by the tests themselves (no timer flush during a test).
const env = { MEDIA_COUNTER_FLUSH_MS: '3600000' }

async function counts(app: Awaited<ReturnType<typeof build>>, id: string) {
  const { rows } = await app.db.query<{ view_count: number; download_count: number }>(
    'SELECT view_count, download_count FROM memes WHERE id = $1',
    [id],
  )
  return rows[0]
}

test('GET /media/{id}: WebP bytes, strong ETag, immutable cache, rate-limit headers', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const id = await addMeme(app, { originalName: 'My Cat (final).PNG' })
  const res = await app.inject(`/media/${id}`)
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'image/webp')
  t.equal(res.headers.etag, `"${id}"`)
  t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.equal(res.headers['content-disposition'], undefined)
  t.ok(res.headers['ratelimit-limit'] && res.headers['ratelimit-remaining'] && res.headers['ratelimit-reset'])
  t.same(res.rawPayload, await webpBytes(), 'the stored bytes')
  t.equal((await sharp(res.rawPayload).metadata()).format, 'webp')

  const download = await app.inject(`/media/${id}?download=1`)
  t.equal(download.statusCode, 200)
  t.equal(download.headers['content-disposition'], 'attachment; filename="My-Cat-final.webp"')
})

test('If-None-Match answers 304 without a body', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const id = await addMeme(app)
  for (const inm of [`"${id}"`, `W/"${id}"`, `"other", "${id}"`, '*']) {
    const res = await app.inject({ url: `/media/${id}`, headers: { 'if-none-match': inm } })
    t.equal(res.statusCode, 304, inm)
    t.equal(res.body, '', 'no body')
    t.equal(res.headers.etag, `"${id}"`)
    t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable')
  }
  const other = await app.inject({ url: `/media/${id}`, headers: { 'if-none-match': '"something-else"' } })
  t.equal(other.statusCode, 200, 'another tag gets the image')
})

test('media 404 for pending, rejected, deleted, unknown and malformed ids', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const cases = {
    pending: await addMeme(app, { status: 'pending' }),
    rejected: await addMeme(app, { status: 'rejected' }),
    deleted: await addMeme(app, { deleted: true }),
    unknown: 'b'.repeat(64),
    malformed: 'not-an-id',
    uppercase: 'B'.repeat(64),
  }
  for (const [name, id] of Object.entries(cases)) {
    const res = await app.inject(`/media/${id}`)
    t.equal(res.statusCode, 404, name)
    t.same(res.json(), { error: 'Meme not found.' }, name)
    const cached = await app.inject({ url: `/media/${id}`, headers: { 'if-none-match': `"${id}"` } })
    t.equal(cached.statusCode, 404, `${name}: no 304 for a meme that is not public`)
  }
})

test('views and downloads are counted in memory and written in batches', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const id = await addMeme(app)
  const other = await addMeme(app)
  for (let i = 0; i < 3; i++) await app.inject(`/media/${id}`)
  await app.inject({ url: `/media/${id}`, headers: { 'if-none-match': `"${id}"` } })
  await app.inject(`/media/${id}?download=1`)
  await app.inject({ method: 'HEAD', url: `/media/${id}` })
  await app.inject(`/media/${other}?download=1`)
  await app.inject(`/media/${'c'.repeat(64)}`)

  t.same(await counts(app, id), { view_count: 0, download_count: 0 }, 'nothing written per request')
  t.equal(app.mediaCounters.pendingCount, 2, 'two memes counted in memory')
  await app.mediaCounters.flush()
  t.same(await counts(app, id), { view_count: 4, download_count: 1 }, '200s and 304s counted; HEAD not')
  t.same(await counts(app, other), { view_count: 0, download_count: 1 })
  const meme = (await app.inject(`/api/memes/${id}`)).json().meme
  t.match(meme, { viewCount: 4, downloadCount: 1 }, 'the API shows the flushed counts')
  const listed = (await app.inject('/api/memes')).json().memes.find((m: { id: string }) => m.id === id)
  t.match(listed, { viewCount: 4, downloadCount: 1 }, 'the list too')

  await app.inject(`/media/${id}`)
  await app.mediaCounters.flush()
  t.same(await counts(app, id), { view_count: 5, download_count: 1 }, 'added to, not overwritten')
})

test('counters are flushed on a timer and on close, and reach other instances', async (t) => {
  const app1 = await build(t, { env })
  const app2 = await build(t, { shareWith: app1, env: { MEDIA_COUNTER_FLUSH_MS: '100' } })
  await ready(app1)
  await ready(app2)
  const id = await addMeme(app1)
  await eventually(() => app2.readModel.current?.get(id) !== undefined, { timeoutMs: 3000, intervalMs: 20 })
  await app2.inject(`/media/${id}`)
  await app2.inject(`/media/${id}`)
  const deadline = Date.now() + 3000
  while (Date.now() < deadline && (await counts(app1, id)).view_count < 2) await new Promise((r) => setTimeout(r, 50))
  t.equal((await counts(app1, id)).view_count, 2, 'written by the timer')
  while (Date.now() < deadline && app1.readModel.current?.get(id)?.viewCount !== 2) await new Promise((r) => setTimeout(r, 20))
  t.equal(app1.readModel.current?.get(id)?.viewCount, 2, 'the other instance read the new totals')

  const app3 = await build(t, { shareWith: app1, env })
  await ready(app3)
  await eventually(() => app3.readModel.current?.get(id) !== undefined, { timeoutMs: 3000, intervalMs: 20 })
  await app3.inject(`/media/${id}?download=1`)
  await app3.close()
  t.equal((await counts(app1, id)).download_count, 1, 'written on close')
})

test('media reads have their own rate limit', async (t) => {
  const app = await build(t, { env: { ...env, MEDIA_RATE_LIMIT: '2', READ_RATE_LIMIT: '100' } })
  await ready(app)
  const id = await addMeme(app)
  t.equal((await app.inject(`/media/${id}`)).statusCode, 200)
  t.equal((await app.inject(`/media/${id}`)).statusCode, 200)
  const limited = await app.inject(`/media/${id}`)
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) >= 1)
  t.same(Object.keys(limited.json()), ['error'])
  t.equal((await app.inject('/api/memes')).statusCode, 200, 'API reads unaffected')
})

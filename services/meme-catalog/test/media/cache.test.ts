import { ConfigError, loadConfig } from '@app/common'
import { eventually } from '@app/testing'
import { test } from 'tap'
import { configSchema } from '../../src/config.ts'
import { createMediaCache } from '../../src/media/cache.ts'
import { build } from '../helper.ts'
import { addMeme, ready, webpBytes } from '../memes/fixtures.ts'

// Counters are flushed by the tests themselves.
const env = { MEDIA_COUNTER_FLUSH_MS: '3600000' }
type App = Awaited<ReturnType<typeof build>>

/** Counts the image reads that reach the database. */
function countDatabaseReads(app: App) {
  const read = app.memes.findPublicMedia
  const counter = { reads: 0 }
  app.memes.findPublicMedia = (id) => {
    counter.reads++
    return read(id)
  }
  return counter
}

/** The headers two answers must share: all but the date and the rate-limit budget left. */
const stableHeaders = (headers: Record<string, unknown>): Record<string, unknown> => {
  // Per request: the date, the remaining budget and the generated request id (checked present on both).
  const { date, 'ratelimit-remaining': _remaining, 'x-request-id': requestId, ...rest } = headers
  return { ...rest, 'x-request-id': typeof requestId === 'string' && requestId.length > 0 }
}

// Through `inject` a hit is the route's; the answer given before the router is compared in fast-path.test.ts.
test('a cache hit answers the same status, headers and bytes as the miss before it, without the database', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const id = await addMeme(app, { originalName: 'Hot Meme.png' })
  const database = countDatabaseReads(app)
  for (const url of [`/media/${id}`, `/media/${id}?download=1`]) {
    const miss = await app.inject(url)
    const hit = await app.inject(url)
    t.equal(hit.statusCode, 200, url)
    t.same(stableHeaders(hit.headers), stableHeaders(miss.headers), `${url}: same headers`)
    t.same(hit.rawPayload, miss.rawPayload, `${url}: same bytes`)
    t.same(hit.rawPayload, await webpBytes(), `${url}: the stored image`)
    t.equal(Number(hit.headers['ratelimit-remaining']), Number(miss.headers['ratelimit-remaining']) - 1, 'each counted')
  }
  t.equal(database.reads, 1, 'only the first read went to the database')
  t.equal(app.mediaCache?.entries, 1)
  t.equal(app.mediaCache?.bytes, (await webpBytes()).length)

  const revalidated = await app.inject({ url: `/media/${id}`, headers: { 'if-none-match': `"${id}"` } })
  t.equal(revalidated.statusCode, 304, 'ETag revalidation unchanged')
})

test('views stay exact with the cache: every hit is counted', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const id = await addMeme(app)
  for (let i = 0; i < 5; i++) await app.inject(`/media/${id}`)
  await app.inject(`/media/${id}?download=1`)
  await app.mediaCounters.flush()
  const { rows } = await app.db.query<{ view_count: number; download_count: number }>(
    'SELECT view_count, download_count FROM memes WHERE id = $1',
    [id],
  )
  t.same(rows[0], { view_count: 5, download_count: 1 })
})

test('deleted and rejected memes are 404 at once, and their bytes leave the cache', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const deleted = await addMeme(app)
  const rejected = await addMeme(app)
  const pending = await addMeme(app)
  for (const id of [deleted, rejected, pending]) t.equal((await app.inject(`/media/${id}`)).statusCode, 200)
  t.equal(app.mediaCache?.entries, 3, 'all three cached')

  t.equal(await app.memeUseCases.delete('test', deleted), true)
  t.equal((await app.inject(`/media/${deleted}`)).statusCode, 404, 'deleted: 404 right after the change')
  t.equal(await app.memeUseCases.setStatus('test', rejected, 'rejected'), 'approved')
  t.equal((await app.inject(`/media/${rejected}`)).statusCode, 404, 'rejected: 404 right after the change')
  const revalidate = await app.inject({ url: `/media/${rejected}`, headers: { 'if-none-match': `"${rejected}"` } })
  t.equal(revalidate.statusCode, 404, 'no 304 either')
  t.equal(app.mediaCache?.get(deleted), undefined, 'deleted bytes evicted')
  t.equal(app.mediaCache?.get(rejected), undefined, 'rejected bytes evicted')

  // Changed behind the use cases' back, then a full reload (what an instance does after reconnecting).
  await app.db.query(`UPDATE memes SET status = 'pending' WHERE id = $1`, [pending])
  t.equal((await app.inject(`/media/${pending}`)).statusCode, 200, 'the read model still says public')
  await app.readModel.catalogChanged()
  t.equal((await app.inject(`/media/${pending}`)).statusCode, 404)
  t.equal(app.mediaCache?.entries, 0, 'a full reload drops what is no longer public')
})

test('a meme rejected through another instance is 404 there as soon as the notification arrives', async (t) => {
  const app1 = await build(t, { env })
  const app2 = await build(t, { shareWith: app1, env })
  await ready(app1)
  await ready(app2)
  const id = await addMeme(app1)
  await eventually(async () => (await app2.inject(`/media/${id}`)).statusCode === 200, { timeoutMs: 3000, intervalMs: 20 })
  t.ok(app2.mediaCache?.get(id), 'cached on the second instance')

  t.equal(await app1.memeUseCases.setStatus('test', id, 'rejected'), 'approved')
  t.equal((await app1.inject(`/media/${id}`)).statusCode, 404, 'at once where it was changed')
  await eventually(async () => (await app2.inject(`/media/${id}`)).statusCode === 404, { timeoutMs: 3000, intervalMs: 20 })
  t.equal(app2.mediaCache?.get(id), undefined, 'evicted on the other instance')
  t.equal(app2.readModel.current?.get(id), undefined)
})

test('MEDIA_CACHE_MB=0 turns the cache off: every read goes to the database', async (t) => {
  const app = await build(t, { env: { ...env, MEDIA_CACHE_MB: '0' } })
  await ready(app)
  t.equal(app.mediaCache, null)
  const id = await addMeme(app)
  const database = countDatabaseReads(app)
  for (let i = 0; i < 3; i++) {
    const res = await app.inject(`/media/${id}`)
    t.equal(res.statusCode, 200)
    t.same(res.rawPayload, await webpBytes())
  }
  t.equal(database.reads, 3)
})

test('eviction keeps the cached bytes within the limit, least recently used first', async (t) => {
  const cache = createMediaCache(1)
  if (!cache) throw new Error('cache expected')
  t.equal(cache.maxBytes, 1024 * 1024)
  const image = (n: number) => Buffer.alloc(100 * 1024, n)
  for (let i = 0; i < 9; i++) cache.set(`id${i}`, image(i))
  t.equal(cache.entries, 9)
  t.ok(cache.get('id0'), 'touched: now the most recently used')
  for (let i = 9; i < 40; i++) {
    cache.set(`id${i}`, image(i))
    t.ok(cache.bytes <= cache.maxBytes, `within the limit after ${i + 1} images`)
  }
  t.equal(cache.entries, 10, 'ten 100 KiB images fit in 1 MiB')
  t.equal(cache.get('id1'), undefined, 'the oldest went first')
  t.same(cache.get('id39'), image(39), 'the newest is kept, bytes intact')

  cache.set('huge', Buffer.alloc(2 * 1024 * 1024))
  t.equal(cache.get('huge'), undefined, 'an image larger than the whole cache is not kept')
  t.ok(cache.bytes <= cache.maxBytes)

  // A view into a larger buffer is stored as its own copy, so the cache never pins the larger one.
  const message = Buffer.alloc(64 * 1024, 7)
  cache.set('view', message.subarray(100, 200))
  const stored = cache.get('view')
  t.equal(stored?.buffer.byteLength, 100)
  t.same(stored, Buffer.alloc(100, 7))

  t.equal(createMediaCache(0), null, '0: no cache')
})

test('MEDIA_CACHE_MB must be an integer from 0 to 65536', async (t) => {
  t.equal(loadConfig(configSchema, {}).MEDIA_CACHE_MB, 32, 'default 32 MiB')
  t.equal(loadConfig(configSchema, { MEDIA_CACHE_MB: '0' }).MEDIA_CACHE_MB, 0)
  for (const bad of ['abc', '-1', '65537', '12MB']) {
    t.throws(() => loadConfig(configSchema, { MEDIA_CACHE_MB: bad }), ConfigError, bad)
    try {
      loadConfig(configSchema, { MEDIA_CACHE_MB: bad })
    } catch (error) {
      t.match((error as Error).message, /MEDIA_CACHE_MB is invalid: expected an integer 0\.\.65536/, `${bad}: names the setting`)
    }
  }
})

import type { Queryable } from '@app/common'
import { eventually } from '@app/testing'
import { test } from 'tap'
import { corpusMeme, inBatches, streamCorpus } from '../../bench/corpus.ts'
import { createMemesRepository } from '../../src/memes/repository.ts'
import { addScores, eventScore, TRENDING_HALF_LIFE_MS } from '../../src/memes/trending.ts'
import { build } from '../helper.ts'
import { addMeme, ready } from './fixtures.ts'

const DAY = 24 * 60 * 60 * 1000
/** A fixed clock for the counter flushes (events are dated by the flush). */
const T0 = Date.parse('2026-03-01T12:00:00Z')

type App = Awaited<ReturnType<typeof build>>

async function trendingIds(app: App, query = ''): Promise<string[]> {
  const res = await app.inject(`/api/memes/trending${query}`)
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json().memes.map((m: { id: string }) => m.id)
}

/** The order the database's index gives (the route's answer while the read model loads). */
async function databaseIds(app: App): Promise<string[]> {
  const found = await app.memes.listPublic({ tags: [], offset: 0, limit: 48, order: 'trending' })
  return found.memes.map((m) => m.id)
}

async function view(app: App, id: string, times: number, download = false) {
  for (let i = 0; i < times; i++) {
    const res = await app.inject(`/media/${id}${download ? '?download=1' : ''}`)
    if (res.statusCode !== 200) throw new Error(`media ${res.statusCode}`)
  }
}

test('the score is a decayed sum: halves per half-life, adds up, never overflows', async (t) => {
  t.equal(eventScore(4, 0, T0) - eventScore(2, 0, T0), 1, 'twice the views, one doubling')
  t.equal(eventScore(0, 1, T0), eventScore(2, 0, T0), 'a download weighs two views')
  t.ok(Math.abs(eventScore(2, 0, T0 + TRENDING_HALF_LIFE_MS) - eventScore(4, 0, T0)) < 1e-9, 'a half-life halves')
  t.ok(Math.abs(addScores(eventScore(1, 0, T0), eventScore(1, 0, T0)) - eventScore(2, 0, T0)) < 1e-9)
  const far = Date.parse('2400-01-01T00:00:00Z')
  t.ok(Number.isFinite(addScores(eventScore(1, 0, far), eventScore(1e9, 0, far))), 'finite centuries ahead')
})

test('GET /api/memes/trending: views and downloads order it, newest first between equals', async (t) => {
  const app = await build(t)
  await ready(app)
  const oldest = await addMeme(app, { ageMinutes: 30, caption: 'oldest' })
  const middle = await addMeme(app, { ageMinutes: 20, caption: 'middle' })
  const newest = await addMeme(app, { ageMinutes: 10, caption: 'newest' })
  await addMeme(app, { ageMinutes: 5, status: 'pending' })
  t.same(await trendingIds(app), [newest, middle, oldest], 'nothing viewed: newest first, approved only')

  await view(app, oldest, 3)
  await view(app, middle, 1, true)
  await app.mediaCounters.flush(T0)
  t.same(await trendingIds(app), [oldest, middle, newest], '3 views, then a download (2), then never viewed')
  t.same(await databaseIds(app), [oldest, middle, newest], 'the database orders alike')
  const giphy = (await app.inject('/v1/gifs/trending')).json()
  t.same(
    giphy.data.map((gif: { id: string }) => gif.id),
    [oldest, middle, newest],
    'GIPHY trending uses the order',
  )
  t.equal(giphy.pagination.total_count, 3)

  const res = await app.inject('/api/memes/trending?pageSize=2&page=2')
  const body = res.json()
  t.equal(res.statusCode, 200)
  t.match(res.headers['cache-control'], /no-store/)
  t.ok(res.headers['ratelimit-limit'], 'read-limited')
  t.same(
    { ...body, memes: body.memes.map((m: { id: string }) => m.id), rateLimit: undefined },
    {
      page: 2,
      pageSize: 2,
      total: 3,
      totalPages: 2,
      memes: [newest],
      rateLimit: undefined,
    },
  )
  const [first] = (await app.inject('/api/memes/trending?pageSize=1')).json().memes
  t.same(first, app.readModel.current?.get(oldest), 'the list item shape, with the flushed counts')
  t.equal(first.viewCount, 3)

  t.equal((await app.inject('/api/memes/trending?pageSize=49')).statusCode, 400)
  t.equal((await app.inject('/api/memes/trending?page=0')).statusCode, 400)
  t.equal((await app.inject('/api/memes/trending?tag=')).statusCode, 400)
  t.same(await trendingIds(app, '?page=9'), [oldest, middle, newest], 'a page past the last is clamped')
})

test('decay: recent views outrank more, older ones; the order survives a rebuild from the database', async (t) => {
  const app = await build(t)
  await ready(app)
  const early = await addMeme(app, { ageMinutes: 30, tags: ['cats'] })
  const late = await addMeme(app, { ageMinutes: 20, tags: ['cats'] })
  const other = await addMeme(app, { ageMinutes: 10, tags: ['dogs'] })
  await view(app, early, 5)
  await app.mediaCounters.flush(T0)
  await view(app, late, 3)
  await app.mediaCounters.flush(T0 + 2 * DAY)
  // 5 views two days (one half-life) earlier weigh 2.5 now: 3 fresh views lead.
  t.same(await trendingIds(app), [late, early, other])
  t.same(await databaseIds(app), [late, early, other])
  t.same(await trendingIds(app, '?tag=cats'), [late, early], 'a tag filter narrows the order')

  await view(app, early, 1)
  await app.mediaCounters.flush(T0 + 2 * DAY)
  t.same(await trendingIds(app), [early, late, other], '2.5 + 1 now beats 3')
  await view(app, other, 1)
  await app.mediaCounters.flush(T0 + 10 * DAY)
  t.same(await trendingIds(app), [other, early, late], 'one view 8 days later beats them all (3.5 / 16)')

  await app.readModel.catalogChanged()
  t.same(await trendingIds(app), [other, early, late], 'a full build reads the scores (COPY)')
  const [record] = [app.readModel.current?.record(early)]
  const expected = addScores(addScores(eventScore(5, 0, T0), eventScore(1, 0, T0 + 2 * DAY)), Number.NEGATIVE_INFINITY)
  t.ok(Math.abs((record?.trending ?? 0) - expected) < 1e-6, 'the database sums as the reference does')
})

test("a flush on one instance moves the meme in the other instance's trending order", async (t) => {
  const app1 = await build(t)
  const app2 = await build(t, { shareWith: app1 })
  await ready(app1)
  await ready(app2)
  const older = await addMeme(app1, { ageMinutes: 20 })
  const newer = await addMeme(app1, { ageMinutes: 10 })
  await eventually(async () => (await trendingIds(app2)).length === 2, { timeoutMs: 2000, intervalMs: 20 })
  t.same(await trendingIds(app2), [newer, older])
  await view(app1, older, 1)
  await app1.mediaCounters.flush(T0)
  await eventually(async () => (await trendingIds(app2))[0] === older, { timeoutMs: 2000, intervalMs: 20 })
  t.same(await trendingIds(app2), [older, newer], 'announced with the counts (NOTIFY), read from the database')
})

test('ties are stable: equal scores list newest first, then by id, the same on every page and read', async (t) => {
  const app = await build(t, { env: { READ_RATE_LIMIT: '10000' } })
  await ready(app)
  const ids: string[] = []
  for (let i = 0; i < 6; i++) ids.push(await addMeme(app, { ageMinutes: 60 - (i % 3) }))
  for (const id of ids) await view(app, id, 2)
  await app.mediaCounters.flush(T0)
  const reference = [...ids].sort((a, b) => {
    const ra = app.readModel.current?.record(a)
    const rb = app.readModel.current?.record(b)
    return (rb?.createdAt ?? 0) - (ra?.createdAt ?? 0) || (a < b ? 1 : -1)
  })
  const pages = [...(await trendingIds(app, '?pageSize=4&page=1')), ...(await trendingIds(app, '?pageSize=4&page=2'))]
  t.same(pages, reference, 'pages tile the order without overlap')
  t.same(await trendingIds(app), reference, 'again, the same')
  t.same(await databaseIds(app), reference, 'the database breaks ties the same way')
})

test('the database reads the trending page through its index, never a sort of the catalog', async (t) => {
  const app = await build(t)
  await ready(app)
  await app.memeUseCases.bulkLoad(inBatches([...streamCorpus({ documents: 3000, seed: 7 }).documents].map(corpusMeme), 1000))
  const ids = (await app.db.query<{ id: string }>('SELECT id FROM memes ORDER BY id LIMIT 50')).rows.map((r) => r.id)
  await app.memes.addCounts(
    ids.map((id, i) => ({ id, views: i + 1, downloads: 0 })),
    T0,
  )
  await app.db.query('ANALYZE memes')
  const plans: string[] = []
  // The repository's own statement, explained as it runs (only listPublic is called below).
  const explaining = {
    async query(sql: string, params?: unknown[]) {
      if (/ORDER BY/.test(sql)) {
        const { rows } = await app.db.query<Record<string, string>>(`EXPLAIN ${sql}`, params)
        plans.push(rows.map((row) => Object.values(row)[0]).join('\n'))
      }
      return app.db.query(sql, params)
    },
  } as unknown as Queryable
  await createMemesRepository(explaining).listPublic({ tags: [], offset: 24, limit: 12, order: 'trending' })
  t.equal(plans.length, 1)
  t.match(plans[0], /Index Scan using memes_public_trending/, 'the trending index gives the order')
  t.notMatch(plans[0], /Sort Key: m\./, "no sort of memes (only each meme's tags are sorted)")
})

import { eventually } from '@app/testing'
import { test } from 'tap'
import { createMemeUseCases } from '../../src/memes/use-cases.ts'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

const ids = async (app: Awaited<ReturnType<typeof build>>, query: string) =>
  (await app.inject(`/api/memes?${query}`)).json().memes.map((m: { id: string }) => m.id)

test('a change made through one instance reaches the other within a second', async (t) => {
  const app1 = await build(t)
  const app2 = await build(t, { shareWith: app1 })
  await ready(app1)
  await ready(app2)

  const id = await addMeme(app1, { caption: 'flamingo on a skateboard', tags: ['birds'] })
  t.same(await ids(app1, 'q=flamingo'), [id], 'at once on the instance that made it')
  const sent = Date.now()
  await eventually(async () => (await ids(app2, 'q=flamingo')).length === 1, { timeoutMs: 1000, intervalMs: 20 })
  const took = Date.now() - sent
  t.ok(took < 1000, `the other instance within a second (${took} ms)`)

  // Caption edited through the write side: the old word no longer finds it.
  t.equal(await app1.memeUseCases.edit('test', id, { caption: 'pelican on a skateboard' }), 'edited')
  await eventually(async () => (await ids(app2, 'q=pelican')).length === 1, { timeoutMs: 1000, intervalMs: 20 })
  t.same(await ids(app2, 'q=flamingo'), [], 'old caption gone from the other index')
  t.equal((await app2.inject(`/api/memes/${id}`)).json().meme.caption, 'pelican on a skateboard')

  // Rejected through the other instance: gone everywhere.
  t.equal(await app2.memeUseCases.setStatus('test', id, 'rejected'), 'approved')
  t.equal((await app2.inject(`/api/memes/${id}`)).statusCode, 404)
  await eventually(async () => (await app1.inject(`/api/memes/${id}`)).statusCode === 404, { timeoutMs: 1000, intervalMs: 20 })
  t.same(await ids(app1, 'q=pelican'), [])
})

test('catalogChanged reloads every instance (bulk changes)', async (t) => {
  const app1 = await build(t)
  const app2 = await build(t, { shareWith: app1 })
  await ready(app1)
  await ready(app2)
  const a = await addMeme(app1, { tags: ['cats'] })
  const b = await addMeme(app1, { tags: ['cats'] })
  await eventually(async () => (await ids(app2, 'tag=cats')).length === 2, { timeoutMs: 3000, intervalMs: 20 })
  await app1.db.query('DELETE FROM tags WHERE name = $1', ['cats'])
  await app1.readModel.catalogChanged()
  t.same(await ids(app1, 'tag=cats'), [])
  await eventually(async () => (await ids(app2, 'tag=cats')).length === 0, { timeoutMs: 1000, intervalMs: 20 })
  t.same((await app2.inject(`/api/memes/${a}`)).json().meme.tags, [])
  t.equal((await app2.inject(`/api/memes/${b}`)).statusCode, 200)
})

test('health answers at once while the read model is built; reads before it are right', async (t) => {
  const app1 = await build(t)
  await ready(app1)
  const id = await addMeme(app1, { caption: 'already there', tags: ['old'] })
  const app2 = await build(t, { shareWith: app1 })
  // Right after ready: whatever the build's state, the answers are the database's truth.
  const [health, list, one, search] = await Promise.all([
    app2.inject('/api/health'),
    app2.inject('/api/memes?tag=old'),
    app2.inject(`/api/memes/${id}`),
    app2.inject('/api/memes?q=already'),
  ])
  t.equal(health.statusCode, 200)
  t.same(
    list.json().memes.map((m: { id: string }) => m.id),
    [id],
  )
  t.equal(one.statusCode, 200)
  t.same(
    search.json().memes.map((m: { id: string }) => m.id),
    [id],
  )
})

test('a lost notification connection is followed by a full resync', {
  skip: !process.env.DATABASE_URL && 'needs PostgreSQL',
}, async (t) => {
  const app = await build(t)
  await ready(app)
  const killed = await app.db.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()",
  )
  t.ok(killed.rowCount >= 1, 'the LISTEN connection was cut')
  // Written behind the instance's back (a writer that tells no read model): only a resync can find it.
  const unnoticed = createMemeUseCases(
    app.db,
    { memeChanged: async () => {}, catalogChanged: async () => {}, aliasesChanged: async () => {} },
    app.log,
  )
  await unnoticed.insert([
    {
      id: 'd'.repeat(64),
      status: 'approved',
      byteSize: 1,
      width: 1,
      height: 1,
      originalMime: 'image/png',
      originalName: 'x.png',
      moderationScore: 0,
      moderationReason: 'test',
      caption: 'resynced walrus',
    },
  ])
  await eventually(async () => (await ids(app, 'q=walrus')).length === 1, { timeoutMs: 5000, intervalMs: 20 })
  t.pass('found after the reconnect')
})

test('before the read model exists: lists and reads from the database, searches wait then answer 503', async (t) => {
  const app = await build(t)
  await ready(app)
  const older = await addMeme(app, { caption: 'older otter', tags: ['otters'], ageMinutes: 2 })
  const newer = await addMeme(app, { caption: 'newer otter', tags: ['otters', 'new'], ageMinutes: 1 })
  await addMeme(app, { caption: 'hidden otter', tags: ['otters'], status: 'pending' })
  const fromModel = await Promise.all(
    ['/api/memes', '/api/memes?tag=otters', '/api/memes?tag=otters&tag=new', '/api/memes?pageSize=1&page=9'].map(
      async (url) => [url, (await app.inject(url)).json()] as const,
    ),
  )
  // As during start-up: no model yet, and the build does not finish within the wait.
  Object.defineProperty(app.readModel, 'current', { get: () => null })
  app.readModel.whenReady = async () => false

  for (const [url, expected] of fromModel) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    const { rateLimit, ...body } = res.json()
    const { rateLimit: _r, ...want } = expected
    t.same(body, want, `${url}: the database gives the same page`)
  }
  t.equal((await app.inject(`/api/memes/${older}`)).json().meme.id, older)
  t.equal((await app.inject(`/api/memes/${'e'.repeat(64)}`)).statusCode, 404)
  t.equal((await app.inject(`/media/${newer}`)).statusCode, 200)
  const search = await app.inject('/api/memes?q=otter')
  t.equal(search.statusCode, 503, 'a search never answers without the index')
  t.same(Object.keys(search.json()), ['error'])
  t.equal(search.headers['retry-after'], '2')
})

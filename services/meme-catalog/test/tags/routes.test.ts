import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

test('GET /api/tags lists the catalog sorted, with the read budget', async (t) => {
  const app = await build(t)
  const empty = await app.inject('/api/tags')
  t.equal(empty.statusCode, 200)
  t.same(empty.json().tags, [])
  for (const name of ['zebra', 'apple', 'mango']) await app.tags.create(name)
  const res = await app.inject('/api/tags')
  const body = res.json()
  t.same(body.tags, ['apple', 'mango', 'zebra'])
  t.same(body.rateLimit, {
    limit: Number(res.headers['ratelimit-limit']),
    remaining: Number(res.headers['ratelimit-remaining']),
    resetAt: res.headers['ratelimit-reset'],
  })
})

test('/api/tags shares the API read budget', async (t) => {
  const app = await build(t, { env: { READ_RATE_LIMIT: '1', RATE_LIMIT_WINDOW_SECONDS: '3600' } })
  t.equal((await app.inject('/api/tags')).statusCode, 200)
  const limited = await app.inject('/api/tags')
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) >= 1)
  t.equal((await app.inject('/api/memes')).statusCode, 429, 'same budget as the meme reads')
})

test('the tags repository: create is unique, delete removes the tag from memes and reports them', async (t) => {
  const app = await build(t)
  await ready(app)
  t.equal(await app.tags.create('cats'), true)
  t.equal(await app.tags.create('cats'), false, 'already there')
  const a = await addMeme(app, { tags: ['cats', 'dogs'] })
  const b = await addMeme(app, { tags: ['cats'] })
  await addMeme(app, { tags: ['dogs'] })
  t.same(await app.tags.existing(['cats', 'nope', 'dogs']), ['cats', 'dogs'])

  const removed = await app.tags.delete('cats')
  t.equal(removed.deleted, true)
  t.same(removed.memeIds, [a, b].sort())
  t.same(await app.tags.list(), ['dogs'])
  for (const id of removed.memeIds) await app.readModel.memeChanged(id)
  t.same((await app.inject(`/api/memes/${a}`)).json().meme.tags, ['dogs'], 'gone from the meme')
  t.equal((await app.inject('/api/memes?tag=cats')).json().total, 0, 'and from the filter')
  t.same(await app.tags.delete('cats'), { deleted: false, memeIds: [] }, 'deleting twice')
})

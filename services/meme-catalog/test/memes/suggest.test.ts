import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from './fixtures.ts'

test('GET /api/memes/suggest completes the last word from approved memes, most found first, with counts', async (t) => {
  const app = await build(t)
  await ready(app)
  await addMeme(app, { caption: 'Crème brûlée for the cat', tags: ['desserts'] })
  await addMeme(app, { caption: 'a creamy cat', tags: ['cats', 'desserts'] })
  await addMeme(app, { caption: 'caterpillar crawling', tags: ['cats'] })
  await addMeme(app, { caption: 'catamaran cat in review', status: 'pending' })
  await addMeme(app, { caption: 'cataclysm deleted', deleted: true })

  const res = await app.inject('/api/memes/suggest?q=funny%20CAT')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const body = res.json()
  t.same(
    body.suggestions,
    [
      { value: 'cat', kind: 'word', count: 2, query: 'funny cat' },
      { value: 'cats', kind: 'word', count: 2, query: 'funny cats' },
      { value: 'cats', kind: 'tag', count: 2, query: 'funny cats' },
      { value: 'caterpillar', kind: 'word', count: 1, query: 'funny caterpillar' },
    ],
    'pending and deleted memes count for nothing',
  )
  t.same(Object.keys(body), ['suggestions', 'rateLimit'])

  const accents = (await app.inject(`/api/memes/suggest?q=${encodeURIComponent('brû')}`)).json()
  t.same(accents.suggestions, [{ value: 'brulee', kind: 'word', count: 1, query: 'brulee' }], 'accents folded as indexed')
  const typo = (await app.inject('/api/memes/suggest?q=dessrts')).json()
  t.same(
    typo.suggestions.map((s: { value: string; kind: string }) => `${s.kind}:${s.value}`),
    ['word:desserts', 'tag:desserts'],
    'a typo within the search rule',
  )
  const limited = (await app.inject('/api/memes/suggest?q=c&limit=2')).json()
  t.equal(limited.suggestions.length, 2, 'limit')
  const finished = (await app.inject('/api/memes/suggest?q=cat%20')).json()
  t.same(finished.suggestions, [], 'a text ending with a space completes nothing')
  const unknown = (await app.inject('/api/memes/suggest?q=zebra')).json()
  t.same(unknown.suggestions, [])

  // A meme approved later is found at once (the read model follows the write side).
  await addMeme(app, { caption: 'category theory' })
  const after = (await app.inject('/api/memes/suggest?q=categ')).json()
  t.same(after.suggestions, [{ value: 'category', kind: 'word', count: 1, query: 'category' }])
})

test('GET /api/memes/suggest: bad parameters are 400, the read budget is shared with the other reads', async (t) => {
  const app = await build(t, { env: { READ_RATE_LIMIT: '3', RATE_LIMIT_WINDOW_SECONDS: '3600' } })
  await ready(app)
  for (const [i, url] of [
    '/api/memes/suggest',
    '/api/memes/suggest?q=',
    `/api/memes/suggest?q=${'a'.repeat(201)}`,
    '/api/memes/suggest?q=a&limit=0',
    '/api/memes/suggest?q=a&limit=11',
  ].entries()) {
    // Each from its own address: a refused request spends the read budget too.
    const res = await app.inject({ url, remoteAddress: `10.0.0.${i + 1}` })
    t.equal(res.statusCode, 400, url)
    t.same(Object.keys(res.json()), ['error'], url)
  }
  for (const [i, url] of ['/api/memes/suggest?q=a', '/api/memes', '/api/memes/suggest?q=b'].entries()) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    const { rateLimit } = res.json()
    t.same(rateLimit, {
      limit: 3,
      remaining: Number(res.headers['ratelimit-remaining']),
      resetAt: res.headers['ratelimit-reset'],
    })
    t.equal(rateLimit.remaining, 2 - i, 'one budget for all API reads')
  }
  const spent = await app.inject('/api/memes/suggest?q=c')
  t.equal(spent.statusCode, 429)
  t.ok(Number(spent.headers['retry-after']) >= 1)
})

test('GET /api/memes/suggest offers tag aliases under their own name, counted by their tag, with the tag named', async (t) => {
  const app = await build(t)
  await ready(app)
  await addMeme(app, { caption: 'sleepy', tags: ['cats'] })
  await addMeme(app, { caption: 'sofa', tags: ['cats'] })
  await addMeme(app, { caption: 'kite flying', tags: ['outdoors'] })
  t.ok('added' in (await app.tagUseCases.addAlias('admin:test', 'cats', 'kitty')))
  t.ok('added' in (await app.tagUseCases.addAlias('admin:test', 'outdoors', 'kittiwake')))

  const body = (await app.inject('/api/memes/suggest?q=kit')).json()
  t.same(body.suggestions, [
    { value: 'kitty', kind: 'tag', count: 2, aliasOf: 'cats', query: 'kitty' },
    { value: 'kite', kind: 'word', count: 1, query: 'kite' },
    { value: 'kittiwake', kind: 'tag', count: 1, aliasOf: 'outdoors', query: 'kittiwake' },
  ])
  const typo = (await app.inject('/api/memes/suggest?q=grumpy%20kittu')).json()
  t.same(typo.suggestions, [{ value: 'kitty', kind: 'tag', count: 2, aliasOf: 'cats', query: 'grumpy kitty' }], 'typos too')
  const filtered = (await app.inject('/api/memes?tag=kitty')).json()
  t.equal(filtered.total, 2, 'the value works as a tag filter')

  await app.tagUseCases.removeAlias('admin:test', 'cats', 'kitty')
  const after = (await app.inject('/api/memes/suggest?q=kitt')).json()
  t.same(
    after.suggestions.map((s: { value: string }) => s.value),
    ['kittiwake'],
    'a removed alias is no longer offered',
  )
})

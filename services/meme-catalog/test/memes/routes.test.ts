import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from './fixtures.ts'

type Json = Record<string, any>

test('an empty catalog answers page 1 of 0 with no memes', async (t) => {
  const app = await build(t)
  await ready(app)
  for (const url of ['/api/memes', '/api/memes?page=5', '/api/memes?q=anything', '/api/memes?tag=nothing']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    const body = res.json()
    t.match(body, { page: 1, pageSize: 12, total: 0, totalPages: 0, memes: [] }, url)
  }
})

test('pages: defaults, sizes, newest first and a page past the last clamped to the last', async (t) => {
  const app = await build(t)
  await ready(app)
  const ids: string[] = []
  // ages 0..29 minutes: ids[0] is the newest.
  for (let i = 0; i < 30; i++) ids.push(await addMeme(app, { caption: `meme number ${i}`, ageMinutes: i }))

  const first = (await app.inject('/api/memes')).json()
  t.match(first, { page: 1, pageSize: 12, total: 30, totalPages: 3 })
  t.same(
    first.memes.map((m: Json) => m.id),
    ids.slice(0, 12),
    'newest first',
  )

  const third = (await app.inject('/api/memes?page=3&pageSize=12')).json()
  t.same(
    third.memes.map((m: Json) => m.id),
    ids.slice(24),
  )

  const beyond = (await app.inject('/api/memes?page=99&pageSize=12')).json()
  t.equal(beyond.page, 3, 'clamped to the last page')
  t.same(
    beyond.memes.map((m: Json) => m.id),
    ids.slice(24),
  )

  const huge = (await app.inject('/api/memes?page=99999999999999999999')).json()
  t.equal(huge.page, 3, 'an enormous page number is clamped too')

  const big = (await app.inject('/api/memes?pageSize=48')).json()
  t.match(big, { page: 1, pageSize: 48, total: 30, totalPages: 1 })
  t.equal(big.memes.length, 30)

  const one = (await app.inject('/api/memes?pageSize=1&page=30')).json()
  t.equal(one.memes[0].id, ids[29], 'the oldest on the last page')
})

test('only approved, not deleted memes are listed and readable', async (t) => {
  const app = await build(t)
  await ready(app)
  const visible = await addMeme(app, { caption: 'visible llama' })
  const pending = await addMeme(app, { caption: 'pending llama', status: 'pending' })
  const rejected = await addMeme(app, { caption: 'rejected llama', status: 'rejected' })
  const deleted = await addMeme(app, { caption: 'deleted llama', deleted: true })

  const list = (await app.inject('/api/memes?q=llama')).json()
  t.same(
    list.memes.map((m: Json) => m.id),
    [visible],
  )

  const ok = await app.inject(`/api/memes/${visible}`)
  t.equal(ok.statusCode, 200)
  t.match(ok.json().meme, {
    id: visible,
    status: 'approved',
    mime: 'image/webp',
    url: `/media/${visible}`,
    downloadUrl: `/media/${visible}?download=1`,
    caption: 'visible llama',
    demo: false,
  })

  for (const [name, id] of [
    ['pending', pending],
    ['rejected', rejected],
    ['deleted', deleted],
    ['unknown', 'a'.repeat(64)],
    ['too short', 'abc'],
    ['uppercase hex', visible.toUpperCase()],
    ['not hex', 'g'.repeat(64)],
  ]) {
    const res = await app.inject(`/api/memes/${id}`)
    t.equal(res.statusCode, 404, name)
    t.same(res.json(), { error: 'Meme not found.' }, name)
  }
})

test('every invalid parameter is a 400 naming it', async (t) => {
  const app = await build(t)
  await ready(app)
  const cases: [string, string][] = [
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page=1&page=2', 'page'],
    ['page=', 'page'],
    ['pageSize=0', 'pageSize'],
    ['pageSize=49', 'pageSize'],
    ['pageSize=ten', 'pageSize'],
    [`q=${'a'.repeat(201)}`, 'q'],
    ['q=%21%21%21', 'q'],
    ['q=%20-%20', 'q'],
    [`${Array.from({ length: 21 }, (_, i) => `tag=t${i}`).join('&')}`, 'tag'],
    [`tag=${'x'.repeat(61)}`, 'tag'],
    ['tag=', 'tag'],
  ]
  for (const [query, name] of cases) {
    const res = await app.inject(`/api/memes?${query}`)
    t.equal(res.statusCode, 400, query.slice(0, 40))
    const body = res.json()
    t.same(Object.keys(body), ['error'], 'the body is {"error"}')
    t.match(body.error, new RegExp(`'${name}(\\.\\d+)?'`), `${query.slice(0, 40)} names ${name}`)
  }
  // Limits themselves are fine.
  for (const query of [`q=${'a'.repeat(200)}`, `tag=${'x'.repeat(60)}`, 'pageSize=48', 'q=', 'q=%20%20']) {
    t.equal((await app.inject(`/api/memes?${query}`)).statusCode, 200, query.slice(0, 40))
  }
})

test('search: accents, case, prefixes, typos, every word, relevance then newest', async (t) => {
  const app = await build(t)
  await ready(app)
  const cafe = await addMeme(app, { caption: 'Crème brûlée at the CAFÉ', tags: ['food'], ageMinutes: 5 })
  const keyboard = await addMeme(app, { caption: 'keyboard warrior strikes again', tags: ['coding'], ageMinutes: 4 })
  const older = await addMeme(app, { caption: 'warrior cat', tags: ['cats'], ageMinutes: 10 })
  const newer = await addMeme(app, { caption: 'warrior cat', tags: ['cats'], ageMinutes: 1 })

  const ids = async (query: string) => (await app.inject(`/api/memes?${query}`)).json().memes.map((m: Json) => m.id)

  t.same(await ids('q=creme%20brulee'), [cafe], 'accent-insensitive')
  t.same(await ids('q=caf%C3%A9'), [cafe], 'accents in the query too')
  t.same(await ids('q=CrEmE'), [cafe], 'case-insensitive')
  t.same(await ids('q=keyb'), [keyboard], 'prefix of the last word')
  t.same(await ids('q=keybxard'), [keyboard], 'a typo in a long word')
  t.same(await ids('q=warrior%20again'), [keyboard], 'every word must match')
  t.same(await ids('q=warrior%20nothinglikeit'), [], 'a word matching nothing empties the result')
  t.same(await ids('q=food'), [cafe], 'tags are searchable')
  t.same(await ids('q=cat'), [newer, older], 'equal relevance: newest first')
  t.same(await ids('q=warrior&tag=cats'), [newer, older], 'q combined with a tag')
})

test('tag filters are exact, lowercased and ANDed', async (t) => {
  const app = await build(t)
  await ready(app)
  const both = await addMeme(app, { tags: ['cats', 'coffee'], ageMinutes: 3 })
  const cats = await addMeme(app, { tags: ['cats'], ageMinutes: 2 })
  const coffee = await addMeme(app, { tags: ['coffee'], ageMinutes: 1 })
  await addMeme(app, { tags: ['catsup'] })

  const ids = async (query: string) => (await app.inject(`/api/memes?${query}`)).json().memes.map((m: Json) => m.id)
  t.same(await ids('tag=cats'), [cats, both], 'one tag, newest first, no prefix match')
  t.same(await ids('tag=coffee'), [coffee, both])
  t.same(await ids('tag=cats&tag=coffee'), [both], 'AND')
  t.same(await ids('tag=CATS&tag=Coffee'), [both], 'lowercased')
  t.same(await ids('tag=cats&tag=cats'), [cats, both], 'repeated names count once')
  t.same(await ids('tag=cat'), [], 'exact names only')

  // The database answer used before the index is ready agrees with it.
  const fromDb = await app.memes.listPublic({ tags: ['cats', 'coffee'], offset: 0, limit: 12 })
  t.same(
    fromDb.memes.map((m) => m.id),
    [both],
  )
  t.equal(fromDb.total, 1)
})

test('tag filters are normalized like catalog names: NFC, whitespace collapsed, lowercase', async (t) => {
  const app = await build(t)
  await ready(app)
  const fooBar = await addMeme(app, { tags: ['foo bar'] })
  const cafe = await addMeme(app, { tags: ['caf\u00e9 noir'] })
  const ids = async (query: string) => (await app.inject(`/api/memes?${query}`)).json().memes.map((m: Json) => m.id)
  t.same(await ids('tag=Foo%20%20Bar'), [fooBar], 'inner whitespace collapsed')
  t.same(await ids('tag=%20foo%09bar%20'), [fooBar], 'tabs and edges too')
  t.same(await ids(`tag=${encodeURIComponent('CAFE\u0301 NOIR')}`), [cafe], 'decomposed accents compose (NFC)')
  const fromDb = await app.memes.listPublic({ tags: ['foo bar'], offset: 0, limit: 12 })
  t.same(
    fromDb.memes.map((m) => m.id),
    [fooBar],
  )
})

test('the rateLimit body equals the RateLimit-* headers; 429 with Retry-After when spent', async (t) => {
  const app = await build(t, { env: { READ_RATE_LIMIT: '3', MEDIA_RATE_LIMIT: '50', RATE_LIMIT_WINDOW_SECONDS: '3600' } })
  await ready(app)
  const id = await addMeme(app, { caption: 'limited' })
  const urls = ['/api/memes', `/api/memes/${id}`, '/api/tags']
  for (const [i, url] of urls.entries()) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    const { rateLimit } = res.json()
    t.same(
      rateLimit,
      {
        limit: Number(res.headers['ratelimit-limit']),
        remaining: Number(res.headers['ratelimit-remaining']),
        resetAt: res.headers['ratelimit-reset'],
      },
      `${url}: body equals headers`,
    )
    t.equal(rateLimit.limit, 3)
    t.equal(rateLimit.remaining, 2 - i, 'one budget for all API reads')
    t.ok(new Date(rateLimit.resetAt).getTime() > Date.now(), 'reset in the future')
  }
  const limited = await app.inject('/api/memes')
  t.equal(limited.statusCode, 429)
  t.same(Object.keys(limited.json()), ['error'])
  const retryAfter = Number(limited.headers['retry-after'])
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${limited.headers['retry-after']}`)
  t.equal(limited.headers['ratelimit-remaining'], '0')

  // Media reads have their own budget; other clients theirs.
  t.equal((await app.inject(`/media/${id}`)).statusCode, 200, 'media still allowed')
  t.equal((await app.inject({ url: '/api/memes', remoteAddress: '10.0.0.9' })).statusCode, 200, 'another IP still allowed')
})

test('JSON is compressed when the client accepts it', async (t) => {
  const app = await build(t)
  await ready(app)
  for (let i = 0; i < 5; i++) await addMeme(app, { caption: `compressible caption ${i}` })
  const res = await app.inject({ url: '/api/memes', headers: { 'accept-encoding': 'gzip' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  const plain = await app.inject('/api/memes')
  t.equal(plain.headers['content-encoding'], undefined)
  t.match(plain.headers['content-type'], /^application\/json/)
})

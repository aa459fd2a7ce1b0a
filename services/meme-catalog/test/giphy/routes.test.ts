import t from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

type Json = Record<string, any>
const IP = { remoteAddress: '203.0.113.1' }

const app = await build(t, { env: { CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' } })
await ready(app)
const older = await addMeme(app, { caption: 'Grumpy cat says no', tags: ['cats'], ageMinutes: 10 })
const newer = await addMeme(app, { caption: 'Dog in a hat', tags: ['dogs'], ageMinutes: 5 })
const pending = await addMeme(app, { caption: 'Grumpy pending cat', status: 'pending' })

const get = async (url: string, extra = {}) => app.inject({ url, ...IP, ...extra })

t.test('search: GIPHY envelope with data, pagination and meta; GIF objects with string numbers', async (t) => {
  const res = await get('/v1/gifs/search?q=grumpy&api_key=anything&lang=en&pingback_id=x&excludeDynamicResults=undefined')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['access-control-allow-origin'], '*', 'readable from any origin, like the public API')
  t.ok(res.headers['ratelimit-remaining'])
  const body = res.json() as Json
  t.same(Object.keys(body).sort(), ['data', 'meta', 'pagination'])
  t.same(body.pagination, { total_count: 1, count: 1, offset: 0 })
  t.match(body.meta, { status: 200, msg: 'OK', response_id: /^[a-f0-9]{40}$/ })
  const [gif] = body.data
  t.equal(gif.id, older, 'the approved match only (the pending one is not public)')
  t.match(gif, {
    type: 'gif',
    title: 'Grumpy cat says no',
    slug: `grumpy-cat-says-no-${older}`,
    username: '',
    source: '',
    rating: 'g',
    import_datetime: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
    url: `http://localhost:80/api/memes/${older}`,
    tags: ['cats'],
  })
  t.same(Object.keys(gif.images).sort(), [
    'downsized',
    'fixed_height',
    'fixed_height_small',
    'fixed_width',
    'fixed_width_small',
    'original',
    'preview_webp',
  ])
  for (const [name, image] of Object.entries<Json>(gif.images)) {
    for (const field of ['width', 'height', 'size', 'webp_size'])
      t.match(image[field], /^[0-9]+$/, `${name}.${field} is a string`)
    t.equal(image.url, image.webp, `${name}: url and webp are the same WebP`)
    t.notOk('mp4' in image, `${name}: no mp4`)
  }
  t.match(gif.images.original, { url: `http://localhost:80/media/${older}`, width: '8', height: '6' })
  t.match(gif.images.fixed_width, { url: `http://localhost:80/media/${older}/fixed_width`, width: '200', height: '150' })
  t.match(gif.images.fixed_height, { width: '267', height: '200' })
  t.match(gif.images.fixed_width_small, { width: '100', height: '75' })
  t.match(gif.images.fixed_height_small, { width: '133', height: '100' })
  t.match(gif.images.downsized, { width: '8', height: '6' }, 'downsized never enlarges')
  t.ok(Number(gif.images.fixed_width.size) > 0, 'sizes of the stored renditions')

  const none = (await get('/v1/gifs/search?q=%21%21%21')).json() as Json
  t.same(none.data, [], 'a q without a word matches nothing')
  t.same(none.pagination, { total_count: 0, count: 0, offset: 0 })
  const past = (await get('/v1/gifs/search?q=grumpy&offset=5')).json() as Json
  t.same(past.pagination, { total_count: 1, count: 0, offset: 5 }, 'an offset past the end is an empty page')
})

t.test('trending: newest first, limit and offset', async (t) => {
  const all = (await get('/v1/gifs/trending')).json() as Json
  t.same(
    all.data.map((g: Json) => g.id),
    [newer, older],
  )
  t.same(all.pagination, { total_count: 2, count: 2, offset: 0 })
  const second = (await get('/v1/gifs/trending?limit=1&offset=1')).json() as Json
  t.same(
    second.data.map((g: Json) => g.id),
    [older],
  )
  t.same(second.pagination, { total_count: 2, count: 1, offset: 1 })
})

t.test('gif by id: the meme; 404 in the envelope for unknown, pending and malformed ids', async (t) => {
  const res = await get(`/v1/gifs/${newer}`)
  t.equal(res.statusCode, 200)
  const body = res.json() as Json
  t.equal(body.data.id, newer)
  t.notOk('pagination' in body)
  for (const id of ['0'.repeat(64), pending, 'not-an-id']) {
    const missing = await get(`/v1/gifs/${id}`)
    t.equal(missing.statusCode, 404, id)
    t.match(missing.json(), { data: [], meta: { status: 404, msg: 'Not Found', response_id: /^[a-f0-9]{40}$/ } })
  }
  const route = await get('/v1/stickers/search?q=x')
  t.equal(route.statusCode, 404)
  t.match(route.json(), { data: [], meta: { status: 404, msg: 'Not Found' } }, 'an unknown /v1 route in the envelope too')
})

t.test('ids form: in the order given, unknown and malformed ids left out, at most 100', async (t) => {
  const res = await get(`/v1/gifs?ids=${older},${'0'.repeat(64)},bogus,${newer},${older}`)
  t.equal(res.statusCode, 200)
  const body = res.json() as Json
  t.same(
    body.data.map((g: Json) => g.id),
    [older, newer],
  )
  t.same(body.pagination, { total_count: 2, count: 2, offset: 0 })
  const many = Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(64, '0')).join(',')
  const tooMany = await get(`/v1/gifs?ids=${many}`)
  t.equal(tooMany.statusCode, 400)
  t.match(tooMany.json(), { data: [], meta: { status: 400, msg: /ids/ } })
  t.equal((await get('/v1/gifs?ids=')).statusCode, 400)
  t.equal((await get('/v1/gifs')).statusCode, 400, 'ids is required')
})

t.test('random: one meme (with tag: one matching it); [] when nothing matches', async (t) => {
  const seen = new Set<string>()
  for (let i = 0; i < 30; i++) {
    const body = (await get('/v1/gifs/random?tag=dogs')).json() as Json
    seen.add(body.data.id)
    t.notOk('pagination' in body)
  }
  t.same([...seen], [newer], 'only the meme tagged dogs')
  const any = new Set<string>()
  for (let i = 0; i < 40 && any.size < 2; i++) any.add(((await get('/v1/gifs/random')).json() as Json).data.id)
  t.same([...any].sort(), [newer, older].sort(), 'without a tag, either meme')
  const nothing = (await get('/v1/gifs/random?tag=unicorns')).json() as Json
  t.same(nothing.data, [])
  t.equal(nothing.meta.status, 200)
})

t.test('search/tags: words and tags starting with q, most used first', async (t) => {
  await addMeme(app, { caption: 'grumbling dog', tags: ['dogs'] })
  const body = (await get('/v1/gifs/search/tags?q=GR')).json() as Json
  t.same(
    body.data,
    [{ name: 'grumbling' }, { name: 'grumpy' }].sort((a, b) => a.name.localeCompare(b.name)),
  )
  t.match(body.pagination, { count: 2, offset: 0 })
  await addMeme(app, { caption: 'hat trick', tags: ['hats'] })
  const ha = (await get('/v1/gifs/search/tags?q=ha&limit=1')).json() as Json
  t.same(ha.data, [{ name: 'hat' }], 'the word of two memes before the tag of one')
  const hats = (await get('/v1/gifs/search/tags?q=ha&limit=1&offset=1')).json() as Json
  t.same(hats.data, [{ name: 'hats' }])
  t.match(hats.pagination, { total_count: 2, count: 1, offset: 1 })
  t.equal((await get('/v1/gifs/search/tags?q=%20')).statusCode, 400)
})

t.test('bad parameters: 400 naming the parameter; a search term over 50 characters: 414', async (t) => {
  for (const url of [
    '/v1/gifs/search?q=cat&limit=0',
    '/v1/gifs/search?q=cat&limit=51',
    '/v1/gifs/search?q=cat&limit=ten',
    '/v1/gifs/search?q=cat&offset=-1',
    '/v1/gifs/search?q=cat&offset=5000',
    '/v1/gifs/search?q=cat&rating=nc-17',
    '/v1/gifs/search',
    '/v1/gifs/search?q=%20',
    '/v1/gifs/trending?limit=1&limit=2',
  ]) {
    const res = await get(url)
    t.equal(res.statusCode, 400, url)
    const body = res.json() as Json
    t.same(body.data, [], url)
    t.match(body.meta, { status: 400, msg: /limit|offset|rating|q/, response_id: /^[a-f0-9]{40}$/ }, url)
  }
  const long = await get(`/v1/gifs/search?q=${'a'.repeat(51)}`)
  t.equal(long.statusCode, 414)
  t.match(long.json(), { data: [], meta: { status: 414 } })
  t.equal((await get(`/v1/gifs/search?q=${'a'.repeat(50)}`)).statusCode, 200, '50 characters are fine')
})

t.test('the catalog’s own document leaves /v1 out; /v1/openapi.json describes it', async (t) => {
  const publicDoc = (await app.inject('/openapi.json')).json() as Json
  t.notOk(
    Object.keys(publicDoc.paths).some((p) => p.startsWith('/v1')),
    'no /v1 path in /openapi.json',
  )
  t.notOk(
    Object.keys(publicDoc.components.schemas).some((name) => name.startsWith('Giphy')),
    'no GIPHY schema there',
  )
  const res = await app.inject('/v1/openapi.json')
  t.equal(res.statusCode, 200)
  const doc = res.json() as Json
  t.same(Object.keys(doc.paths).sort(), [
    '/v1/gifs',
    '/v1/gifs/random',
    '/v1/gifs/search',
    '/v1/gifs/search/tags',
    '/v1/gifs/trending',
    '/v1/gifs/{gif_id}',
    '/v1/openapi.json',
  ])
  t.match(doc.paths['/v1/gifs/search'].get.responses['414'].content['application/json'].schema, {
    $ref: '#/components/schemas/GiphyError',
  })
})

// GIPHY's own JavaScript SDK against a live catalog, through the SDK's documented test override of its API URL.
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import t, { type Test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

const app = await build(t, { env: { CAPTIONER: 'none', CAPTION_CONCURRENCY: '0', GIPHY_API_KEYS: 'sdk-test-key' } })
await ready(app)
await app.listen({ host: '127.0.0.1', port: 0 })
const { port } = app.server.address() as AddressInfo

// The SDK reads GIPHY_API_URL from the global object once, when it loads (src/constants.ts): set it, then import.
;(globalThis as { GIPHY_API_URL?: string }).GIPHY_API_URL = `http://127.0.0.1:${port}/v1/`
const sdk = await import('@giphy/js-fetch-api')
const gf = new sdk.GiphyFetch('sdk-test-key')

const photo = async (width: number, height: number, background: string) => ({
  webp: await sharp({ create: { width, height, channels: 3, background } })
    .webp()
    .toBuffer(),
  width,
  height,
})
const wide = await addMeme(app, {
  caption: 'Surprised owl at night',
  tags: ['owls'],
  ageMinutes: 30,
  image: await photo(640, 360, '#224466'),
})
const tall = await addMeme(app, {
  caption: 'Owl on a branch',
  tags: ['owls'],
  ageMinutes: 20,
  image: await photo(300, 900, '#663300'),
})
const cat = await addMeme(app, {
  caption: 'Cat knocks over a glass',
  tags: ['cats'],
  ageMinutes: 10,
  moderationScore: 35,
  image: await photo(500, 500, '#aa2222'),
})

type Gif = Awaited<ReturnType<typeof gf.gif>>['data']

/** Every image of a GIF object answers 200 image/webp with the size it declares. */
async function checkImages(t: Test, gif: Gif) {
  for (const [name, image] of Object.entries(gif.images) as [
    string,
    { url: string; width: number; height: number; size?: string },
  ][]) {
    const res = await fetch(image.url)
    t.equal(res.status, 200, `${String(gif.id).slice(0, 8)} ${name} answers`)
    t.equal(res.headers.get('content-type'), 'image/webp', `${name} is WebP`)
    const bytes = Buffer.from(await res.arrayBuffer())
    const meta = await sharp(bytes).metadata()
    t.same([meta.width, meta.height], [image.width, image.height], `${name} is ${image.width}x${image.height} as declared`)
    t.equal(Number(image.size), bytes.length, `${name} size is the byte count`)
  }
}

t.equal(sdk.serverUrl, `http://127.0.0.1:${port}/v1/`, 'the SDK took the override')

t.test('search finds the catalog’s memes, with working images', async (t) => {
  const result = await gf.search('owl', { limit: 10 })
  t.same(result.data.map((g) => g.id).sort(), [wide, tall].sort())
  t.equal(result.pagination.total_count, 2)
  t.ok(result.meta.response_id, 'a response id (the SDK refuses answers without one)')
  const owl = result.data.find((g) => g.id === wide)!
  t.equal(owl.title, 'Surprised owl at night')
  t.same(owl.tags, ['owls'])
  t.match(owl.images.fixed_width, { width: 200, height: 113 })
  t.match(owl.images.fixed_height, { width: 356, height: 200 })
  await checkImages(t, owl)
})

t.test('trending: every meme, newest first; the rating option filters', async (t) => {
  const result = await gf.trending({ limit: 5 })
  t.same(
    result.data.map((g) => g.id),
    [cat, tall, wide],
  )
  t.equal(result.data[0].rating, 'pg-13', 'moderation score 35 is pg-13')
  const g = await gf.trending({ limit: 5, rating: 'g' })
  t.same(
    g.data.map((gif) => gif.id),
    [tall, wide],
    'rating=g leaves the pg-13 meme out',
  )
})

t.test('gif(id) and gifs(ids)', async (t) => {
  const one = await gf.gif(tall)
  t.equal(one.data.id, tall)
  await checkImages(t, one.data)
  const many = await gf.gifs([cat, wide])
  t.same(
    many.data.map((g) => g.id),
    [cat, wide],
  )
  t.match(await gf.gif('0'.repeat(64)).catch((error) => error), { status: 404 }, 'an unknown id is a 404 FetchError')
})

t.test('random, with a tag', async (t) => {
  for (let i = 0; i < 5; i++) {
    const result = await gf.random({ tag: 'owls' })
    t.ok([wide, tall].includes(String(result.data.id)), 'an owl')
  }
  const any = await gf.random()
  t.ok([wide, tall, cat].includes(String(any.data.id)))
})

t.test('a key the server does not list is refused with GIPHY’s message', async (t) => {
  const stranger = new sdk.GiphyFetch('not-a-key')
  t.match(await stranger.trending({ limit: 1 }).catch((error) => error), { status: 401, message: /Unauthorized/ })
})

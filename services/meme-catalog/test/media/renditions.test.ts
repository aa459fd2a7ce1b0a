import sharp from 'sharp'
import t from 'tap'
import { RENDITION_NAMES, renditionSize } from '../../src/media/renditions.ts'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

const app = await build(t, { env: { CAPTIONER: 'none', CAPTION_CONCURRENCY: '0', MEDIA_RATE_LIMIT: '40' } })
await ready(app)

const image = async (width: number, height: number) => ({
  webp: await sharp({ create: { width, height, channels: 4, background: '#3a7bd5' } })
    .webp()
    .toBuffer(),
  width,
  height,
})
const photo = await addMeme(app, { caption: 'landscape', image: await image(800, 600) })
const panorama = await addMeme(app, { caption: 'panorama', image: await image(2000, 10) })
const pending = await addMeme(app, { caption: 'pending', status: 'pending', image: await image(50, 50) })

const storedRows = async (id: string) =>
  Number((await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM meme_renditions WHERE meme_id = $1', [id])).rows[0].n)

t.test('each rendition has its size: fixed edges exact, the other edge by aspect ratio, boxes never enlarge', async (t) => {
  const expected: Record<string, [number, number]> = {
    fixed_height: [267, 200],
    fixed_height_small: [133, 100],
    fixed_width: [200, 150],
    fixed_width_small: [100, 75],
    downsized: [480, 360],
    preview_webp: [150, 113],
  }
  for (const name of RENDITION_NAMES) {
    const res = await app.inject(`/media/${photo}/${name}`)
    t.equal(res.statusCode, 200, name)
    t.equal(res.headers['content-type'], 'image/webp')
    const meta = await sharp(res.rawPayload).metadata()
    t.equal(meta.format, 'webp')
    t.same([meta.width, meta.height], expected[name], `${name} is ${expected[name].join('x')}`)
    t.same(renditionSize(name, { width: 800, height: 600 }), { width: meta.width, height: meta.height }, 'as computed')
  }
  t.equal(await storedRows(photo), 6, 'all six stored at once')
  const wide = await sharp((await app.inject(`/media/${panorama}/fixed_height`)).rawPayload).metadata()
  t.same([wide.width, wide.height], [2048, 200], 'a panorama’s fixed_height is cut to 2048 px wide, not 40,000')
  const tiny = await sharp((await app.inject(`/media/${panorama}/fixed_width_small`)).rawPayload).metadata()
  t.same([tiny.width, tiny.height], [100, 1], 'never 0 px')
})

t.test('served like /media: strong ETag, immutable, 304, media rate limit; made once', async (t) => {
  const first = await app.inject(`/media/${photo}/fixed_width`)
  t.equal(first.headers.etag, `"${photo}-fixed_width"`)
  t.equal(first.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.ok(first.headers['ratelimit-limit'], 'the media budget')
  t.equal(first.headers['ratelimit-limit'], '40')
  t.equal(first.headers['x-content-type-options'], 'nosniff', 'the security headers')
  for (const tag of [`"${photo}-fixed_width"`, `W/"${photo}-fixed_width"`, '*']) {
    const again = await app.inject({ url: `/media/${photo}/fixed_width`, headers: { 'if-none-match': tag } })
    t.equal(again.statusCode, 304, tag)
    t.equal(again.rawPayload.length, 0)
    t.equal(again.headers.etag, `"${photo}-fixed_width"`)
  }
  const other = await app.inject({ url: `/media/${photo}/fixed_width`, headers: { 'if-none-match': `"${photo}"` } })
  t.equal(other.statusCode, 200, 'the original’s ETag is not the rendition’s')
  t.same(other.rawPayload, first.rawPayload, 'the same bytes every time')
  const stored = await app.db.query<{ bytes: Uint8Array }>(
    "SELECT bytes FROM meme_renditions WHERE meme_id = $1 AND name = 'fixed_width'",
    [photo],
  )
  t.same(Buffer.from(stored.rows[0].bytes), first.rawPayload, 'served from the stored row')
})

t.test('404 for unknown names, unknown, malformed and unapproved memes', async (t) => {
  for (const url of [
    `/media/${photo}/original`,
    `/media/${photo}/fixed_width_still`,
    `/media/${'0'.repeat(64)}/fixed_width`,
    '/media/nope/fixed_width',
    `/media/${pending}/fixed_width`,
  ]) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 404, url)
    t.same(res.json(), { error: 'Meme not found.' })
  }
  t.equal(await storedRows(pending), 0, 'nothing rendered for a meme that is not public')
})

t.test('a deleted meme’s renditions are 404 at once and leave the cache', async (t) => {
  const gone = await addMeme(app, { caption: 'to delete', image: await image(64, 48) })
  t.equal((await app.inject(`/media/${gone}/preview_webp`)).statusCode, 200)
  t.ok(app.mediaCache?.get(`${gone}/preview_webp`), 'cached')
  t.equal(await app.memeUseCases.delete('admin:test', gone), true)
  t.equal((await app.inject(`/media/${gone}/preview_webp`)).statusCode, 404)
  t.equal(app.mediaCache?.get(`${gone}/preview_webp`), undefined, 'evicted')
})

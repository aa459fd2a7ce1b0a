import { eventually } from '@app/testing'
import sharp from 'sharp'
import tap, { test } from 'tap'
import { classifierPixels, decode, perceptualHash } from '../../src/images/process.ts'
import { build } from '../helper.ts'
import { BOUNDARY, buildApp, multipart, uploadRequest } from '../uploads/fixtures.ts'
import { blockPicture, nearCopy } from './images.ts'

type App = Awaited<ReturnType<typeof buildApp>>
interface Match {
  distance: number
  meme: { id: string; status: string; url: string }
}

const app = await buildApp(tap, { SIMILAR_RATE_LIMIT: '1000', UPLOAD_RATE_LIMIT: '1000', UPLOAD_QUOTA_HOUR: '100' })

function similarRequest(bytes: Buffer, query = '', ip?: string) {
  return {
    method: 'POST' as const,
    url: `/api/memes/similar${query}`,
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipart([{ name: 'meme', filename: 'query.jpg', contentType: 'image/jpeg', data: bytes }]),
    ...(ip ? { remoteAddress: ip } : {}),
  }
}

async function similar(target: App, bytes: Buffer, query = '') {
  const res = await target.inject(similarRequest(bytes, query))
  if (res.statusCode !== 200) throw new Error(`similar answered ${res.statusCode}: ${res.body}`)
  return res.json() as { maxDistance: number; matches: Match[] }
}

async function upload(target: App, image: Buffer): Promise<string> {
  const res = await target.inject(uploadRequest(image))
  if (res.statusCode !== 201) throw new Error(`upload answered ${res.statusCode}: ${res.body}`)
  return res.json().meme.id
}

async function hashOf(image: Buffer) {
  return perceptualHash(await classifierPixels(await decode(image)))
}

async function storedRows(target: App) {
  const { rows } = await target.db.query(
    `SELECT (SELECT count(*)::int FROM memes) AS memes, (SELECT count(*)::int FROM meme_media) AS media,
            (SELECT count(*)::int FROM upload_events) AS events, (SELECT count(*)::int FROM caption_jobs) AS jobs`,
  )
  return rows[0]
}

const originals = await Promise.all([1, 2, 3, 4, 5, 6].map(blockPicture))
const ids: string[] = []
for (const image of originals) ids.push(await upload(app, image))

test('near copies made by resizing and re-encoding find their original first, with a small distance', async (t) => {
  for (const [n, original] of originals.entries()) {
    for (const [scale, quality] of [
      [0.5, 60],
      [1.7, 85],
      [0.8, 35],
    ]) {
      const copy = await nearCopy(original, scale, quality)
      const body = await similar(app, copy)
      t.equal(body.maxDistance, 8, 'the default radius')
      t.equal(body.matches[0]?.meme.id, ids[n], `copy of #${n} at ${scale}x, quality ${quality}: the original first`)
      t.ok(body.matches[0].distance <= 4, `distance ${body.matches[0].distance} is small`)
      t.equal(body.matches[0].meme.url, `/media/${ids[n]}`, 'matches are full public meme records')
      t.equal(body.matches.length, 1, 'the unrelated pictures are not matches')
    }
  }
  const unrelated = await similar(app, await nearCopy(await blockPicture(99), 1, 90))
  t.same(unrelated.matches, [], 'an unrelated picture finds nothing')
})

test('the answer equals a brute-force scan of the stored hashes, nearest first', async (t) => {
  const query = await nearCopy(originals[2], 0.6, 50)
  const hash = await hashOf(query)
  for (const maxDistance of [0, 4, 12]) {
    const body = await similar(app, query, `?maxDistance=${maxDistance}&limit=48`)
    const { rows } = await app.db.query<{ id: string; distance: number }>(
      `SELECT id, bit_count(('x' || phash)::bit(64) # ('x' || $1)::bit(64))::int AS distance FROM memes
       WHERE status = 'approved' AND deleted_at IS NULL AND phash IS NOT NULL
         AND bit_count(('x' || phash)::bit(64) # ('x' || $1)::bit(64)) <= $2
       ORDER BY distance, created_at DESC, id`,
      [hash, maxDistance],
    )
    t.same(
      body.matches.map((m) => ({ id: m.meme.id, distance: m.distance })),
      rows.map((r) => ({ id: r.id, distance: Number(r.distance) })),
      `radius ${maxDistance}`,
    )
  }
  const limited = await similar(app, originals[0], '?maxDistance=12&limit=1')
  t.equal(limited.matches.length, 1)
  t.same(limited.matches[0], { ...limited.matches[0], distance: 0 }, 'the same picture is at distance 0')
})

test('the image is never stored: no meme, media, quota event or job is written', async (t) => {
  const before = await storedRows(app)
  await similar(app, await nearCopy(originals[1], 0.9, 70))
  await similar(app, await blockPicture(1234))
  t.same(await storedRows(app), before)
})

test('refusals: not an image, bad parameters, wrong multipart shape, a polyglot', async (t) => {
  const text = await app.inject(similarRequest(Buffer.from('just some text, not a picture')))
  t.equal(text.statusCode, 415, text.body)
  const radius = await app.inject(similarRequest(originals[0], '?maxDistance=13'))
  t.equal(radius.statusCode, 400)
  t.match(radius.json().error, /maxDistance/)
  const extra = await app.inject(similarRequest(originals[0], '?colour=red'))
  t.equal(extra.statusCode, 400)
  const wrongField = await app.inject({
    ...similarRequest(originals[0]),
    payload: multipart([{ name: 'image', filename: 'x.png', data: originals[0] }]),
  })
  t.equal(wrongField.statusCode, 400)
  t.match(wrongField.json().error, /meme/)
  const polyglot = await app.inject(similarRequest(Buffer.concat([originals[0], Buffer.from('PK\u0003\u0004 zip')])))
  t.equal(polyglot.statusCode, 415)
  const wide = await sharp({ create: { width: 6001, height: 2, channels: 3, background: '#000' } })
    .png()
    .toBuffer()
  const tooWide = await app.inject(similarRequest(wide))
  t.equal(tooWide.statusCode, 400)
  t.match(tooWide.json().error, /6000/)
  const json = await app.inject({ method: 'POST', url: '/api/memes/similar', payload: { meme: 'x' } })
  t.equal(json.statusCode, 400)
})

test('approvals and deletions on one instance reach the other instance’s index; its own rate limit', async (t) => {
  const other = await build(t, { env: { SIMILAR_RATE_LIMIT: '3', CAPTION_CONCURRENCY: '0' }, shareWith: app })
  await other.readModel.whenReady(10_000)
  const copy = await nearCopy(originals[4], 0.7, 60)
  const found = async () => (await similar(other, copy)).matches.map((m) => m.meme.id)
  t.same(await found(), [ids[4]])

  t.equal(await app.memeUseCases.setStatus('test', ids[4], 'rejected'), 'approved')
  await eventually(async () => (await similar(app, copy)).matches.length === 0, { timeoutMs: 2000, intervalMs: 20 })
  t.pass('a rejected meme is no longer found')
  // Each search spends one unit of the 3 allowed: wait with the cheap check, search once at the end.
  await eventually(async () => (await other.readModel.current?.similar(await hashOf(copy), 8, 5))?.length === 0, {
    timeoutMs: 2000,
    intervalMs: 20,
  })
  t.equal(await app.memeUseCases.setStatus('test', ids[4], 'approved'), 'rejected')
  await eventually(async () => (await other.readModel.current?.similar(await hashOf(copy), 8, 5))?.length === 1, {
    timeoutMs: 2000,
    intervalMs: 20,
  })
  t.same(await found(), [ids[4]], 'approved again: found on the other instance')
  t.equal(await other.memeUseCases.delete('test', ids[4]), true)
  await eventually(async () => (await similar(app, copy)).matches.length === 0, { timeoutMs: 2000, intervalMs: 20 })
  t.same(await found(), [], 'deleted on the other instance: gone here too')

  const limited = await other.inject(similarRequest(copy))
  t.equal(limited.statusCode, 429, 'the fourth search in the window is refused')
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal((await other.inject('/api/memes')).statusCode, 200, 'reads have their own budget')
})

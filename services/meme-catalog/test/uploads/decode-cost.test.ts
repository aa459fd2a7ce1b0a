import tap, { test } from 'tap'
import { jpegScanBomb } from '../support/jpeg-scan-bomb.ts'
import { blackPng, hiddenInflatePng, zTxtChunk } from '../support/png-bombs.ts'
import { buildApp, jpegImage, pngImage, uploadRequest } from './fixtures.ts'

type App = Awaited<ReturnType<typeof buildApp>>

// Refused before any decoder runs, these answer in milliseconds; decoding them took seconds (generous bound).
const REFUSED_WITHIN_MS = 1000

async function timedUpload(target: App, bytes: Buffer, options: Parameters<typeof uploadRequest>[1] = {}) {
  const start = performance.now()
  const res = await target.inject(uploadRequest(bytes, options))
  return { res, ms: performance.now() - start }
}

// The refusal tests share one app; the rate-limit test below builds its own.
const app = await buildApp(tap, { UPLOAD_RATE_LIMIT: '1000' })

async function counts(target: App) {
  const { rows } = await target.db.query<{ memes: number; events: number }>(
    'SELECT (SELECT count(*)::int FROM memes) AS memes, (SELECT count(*)::int FROM upload_events) AS events',
  )
  return rows[0]
}

test('JPEG scan bombs (greyscale, three-channel, failing in the last scan) are refused with 400 before decoding', async (t) => {
  t.equal((await app.inject(uploadRequest(await pngImage(1)))).statusCode, 201, 'warm-up upload')
  const before = await counts(app)
  const usual = await timedUpload(app, await jpegImage(2), { filename: 'usual.jpg', contentType: 'image/jpeg' })
  t.equal(usual.res.statusCode, 201)

  // Each of these decoded for seconds before (thousands of all-zero refinement scans).
  const bombs: [string, Buffer][] = [
    ['greyscale', jpegScanBomb({ width: 2000, height: 2000, channels: 1, acScans: 1000 })],
    ['three-channel', jpegScanBomb({ width: 2000, height: 2000, channels: 3, acScans: 1500 })],
    ['failing in its last scan', jpegScanBomb({ width: 2000, height: 2000, channels: 1, acScans: 1000, corruptLastScan: true })],
  ]
  const sent = bombs.map(([, bytes]) => timedUpload(app, bytes, { filename: 'bomb.jpg', contentType: 'image/jpeg' }))
  // A normal upload sent right behind them is not stuck behind their decodes.
  const normal = await timedUpload(app, await jpegImage(3), { filename: 'normal.jpg', contentType: 'image/jpeg' })
  const refused = await Promise.all(sent)
  for (const [i, { res, ms }] of refused.entries()) {
    const name = bombs[i]?.[0]
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.match(res.json(), { error: /more than 100 scans/ }, name)
    t.ok(ms < REFUSED_WITHIN_MS, `${name} refused in ${Math.round(ms)} ms`)
  }
  t.equal(normal.res.statusCode, 201, normal.res.body)
  t.ok(normal.ms < usual.ms * 3 + 1000, `the normal upload took ${Math.round(normal.ms)} ms (alone: ${Math.round(usual.ms)} ms)`)
  t.same(
    await counts(app),
    { memes: before.memes + 2, events: before.events + 2 },
    'the two normal uploads were stored; the bombs stored nothing and used no quota',
  )
})

test('a JPEG under the scan limit that would still decode too many blocks is refused with 400', async (t) => {
  const before = await counts(app)
  const cases: [string, Buffer][] = [
    // 20 megapixels, 41 scans: about 13 million blocks.
    ['greyscale 6000x3333', jpegScanBomb({ width: 6000, height: 3333, channels: 1, acScans: 40 })],
    // 12 megapixels in three components, 61 scans: about 12 million blocks.
    ['three-channel 4000x3000', jpegScanBomb({ width: 4000, height: 3000, channels: 3, acScans: 60 })],
  ]
  for (const [name, bytes] of cases) {
    const { res, ms } = await timedUpload(app, bytes, { filename: 'bomb.jpg', contentType: 'image/jpeg' })
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.match(res.json(), { error: /too many blocks/ }, name)
    t.ok(ms < REFUSED_WITHIN_MS, `${name} refused in ${Math.round(ms)} ms`)
  }
  t.same(await counts(app), before)
})

test('PNG compressed-metadata and hidden-inflate bombs are refused with 400 before decoding', async (t) => {
  const before = await counts(app)
  const ztxt = zTxtChunk()
  const cases: [string, Buffer, RegExp][] = [
    ['40 zTXt chunks of 8 MB each', blackPng(64, 64, Array(40).fill(ztxt)), /more than 32 compressed/],
    ['3 zTXt chunks of 8 MB each', blackPng(64, 64, [ztxt, ztxt, ztxt]), /inflate to more than/],
    ['1x1 image with 4.4 GB more zeros in its zlib stream', hiddenInflatePng(280), /far more than its pixels need/],
  ]
  for (const [name, bytes, message] of cases) {
    t.ok(bytes.length <= 5 * 1024 * 1024, `${name}: ${bytes.length} bytes, within the upload limit`)
    const { res, ms } = await timedUpload(app, bytes)
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.match(res.json(), { error: message }, name)
    t.ok(ms < REFUSED_WITHIN_MS, `${name} refused in ${Math.round(ms)} ms`)
  }
  const plain = await app.inject(uploadRequest(blackPng(64, 64, [zTxtChunk(4000)])))
  t.equal(plain.statusCode, 201, 'a PNG with a small compressed comment is accepted')
  t.same(await counts(app), { memes: before.memes + 1, events: before.events + 1 })
})

test('a failed decode is charged against the upload rate limit; the same bytes are then refused at once', async (t) => {
  const limited = await buildApp(t, { UPLOAD_RATE_LIMIT: '30', UPLOAD_DECODE_FAILURE_COST: '10' })
  // Within every limit, so it is decoded, and found corrupt only in its last scan.
  const failing = jpegScanBomb({ width: 512, height: 512, channels: 1, acScans: 10, corruptLastScan: true })
  const notAnImage = Buffer.from('not an image at all')
  const remaining = (res: { headers: Record<string, unknown> }) => Number(res.headers['ratelimit-remaining'])

  const first = await limited.inject(uploadRequest(failing, { filename: 'a.jpg', contentType: 'image/jpeg' }))
  t.equal(first.statusCode, 400, first.body)
  t.match(first.json(), { error: /cannot be decoded/ })
  t.equal(remaining(first), 29)
  const after = await limited.inject(uploadRequest(notAnImage))
  t.equal(after.statusCode, 415)
  t.equal(remaining(after), 18, 'the failed decode spent 10 more units than its request')

  const again = await limited.inject(uploadRequest(failing, { filename: 'b.jpg', contentType: 'image/jpeg' }))
  t.equal(again.statusCode, 400)
  t.same(again.json(), first.json(), 'the same answer')
  const next = await limited.inject(uploadRequest(notAnImage))
  t.equal(remaining(next), 16, 'the remembered bytes were refused without a decode, so without a charge')
  t.same(await counts(limited), { memes: 0, events: 0 }, 'refusals use no quota')
})

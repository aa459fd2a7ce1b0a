import net from 'node:net'
import sharp from 'sharp'
import tap, { test } from 'tap'
import { BOUNDARY, buildApp, jpegImage, pngImage, uploadRequest } from './fixtures.ts'

// One app for the tests that need no special settings (a loaded CI box makes every start-up costly).
const app = await buildApp(tap)
const multipartHeaders = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }

async function counts(app: Awaited<ReturnType<typeof buildApp>>) {
  const { rows } = await app.db.query<{ memes: number; media: number; events: number; jobs: number }>(
    `SELECT (SELECT count(*)::int FROM memes) AS memes, (SELECT count(*)::int FROM meme_media) AS media,
            (SELECT count(*)::int FROM upload_events) AS events, (SELECT count(*)::int FROM caption_jobs) AS jobs`,
  )
  return rows[0]
}

test('a benign PNG is approved: 201, WebP stored, quota reported, caption job queued', async (t) => {
  const png = await pngImage(1, 120, 80)
  const res = await app.inject(uploadRequest(png, { filename: 'cat.png' }))
  t.equal(res.statusCode, 201, res.body)
  const body = res.json()
  t.equal(body.message, 'Upload approved.')
  t.match(body.meme, {
    status: 'approved',
    mime: 'image/webp',
    originalMime: 'image/png',
    originalName: 'cat.png',
    width: 120,
    height: 80,
    caption: '',
    tags: [],
    demo: false,
    viewCount: 0,
    downloadCount: 0,
  })
  const { createHash } = await import('node:crypto')
  t.equal(body.meme.id, createHash('sha256').update(png).digest('hex'), 'id is the SHA-256 of the uploaded bytes')
  t.ok(body.moderationScore >= 0 && body.moderationScore < 50, `score ${body.moderationScore} below review`)
  t.match(body.moderationReason, /^Deciding class (Porn|Hentai|Sexy) at \d+\.\d%/)
  t.equal(body.meme.moderationScore, body.moderationScore)
  t.same(body.quota, { remainingHour: 9, remainingDay: 49, remainingGlobalDay: 999 })
  const { rows } = await app.db.query<{ bytes: Uint8Array }>('SELECT bytes FROM meme_media WHERE meme_id = $1', [body.meme.id])
  const meta = await sharp(Buffer.from(rows[0].bytes)).metadata()
  t.equal(meta.format, 'webp')
  t.equal(body.meme.byteSize, rows[0].bytes.length, 'byteSize is the stored WebP size')
  t.same(await counts(app), { memes: 1, media: 1, events: 1, jobs: 1 })
})

test('a JPEG is accepted and its original type recorded', async (t) => {
  const res = await app.inject(uploadRequest(await jpegImage(2), { filename: 'x.jpg', contentType: 'image/jpeg' }))
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.json().meme.originalMime, 'image/jpeg')
})

/** Sends raw request bytes over a socket and resolves with the status line, without ever finishing the body. */
function rawRequest(port: number, head: string, body = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head + body))
    let received = ''
    socket.on('data', (data) => {
      received += data.toString('latin1')
      if (received.includes('\r\n\r\n')) {
        socket.destroy()
        resolve(received)
      }
    })
    socket.on('error', reject)
    socket.setTimeout(20_000, () => reject(new Error('no answer')))
  })
}

test('over a real socket: chunked gets 411 and an oversized Content-Length 413 before any body is sent', async (t) => {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as net.AddressInfo
  const common = `POST /api/memes HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n`
  const chunked = await rawRequest(port, `${common}Transfer-Encoding: chunked\r\n\r\n`, '5\r\nhello\r\n')
  t.match(chunked, /^HTTP\/1\.1 411 /)
  t.match(chunked, /Content-Length is required/)
  const declared = await rawRequest(port, `${common}Content-Length: ${20 * 1024 * 1024}\r\n\r\n`)
  t.match(declared, /^HTTP\/1\.1 413 /)
})

test('uploads carry the upload rate limit and answer 429 when it is spent', async (t) => {
  const limited = await buildApp(t, { UPLOAD_RATE_LIMIT: '2' })
  const bad = { method: 'POST' as const, url: '/api/memes', headers: multipartHeaders, payload: 'x' }
  const first = await limited.inject(bad)
  t.equal(first.headers['ratelimit-limit'], '2')
  t.equal(first.headers['ratelimit-remaining'], '1')
  await limited.inject(bad)
  const third = await limited.inject(uploadRequest(await pngImage(6)))
  t.equal(third.statusCode, 429)
  t.ok(Number(third.headers['retry-after']) >= 1)
  t.match(third.json(), { error: /Rate limit/ })
})

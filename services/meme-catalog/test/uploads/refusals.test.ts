import sharp from 'sharp'
import tap, { test } from 'tap'
import { BOUNDARY, buildApp, craftedPng, jpegImage, multipart, pngImage, uploadRequest } from './fixtures.ts'

const MB5 = 5 * 1024 * 1024
const multipartHeaders = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }

// Every refusal shares one app: none of them may leave a row behind, which each test checks.
const app = await buildApp(tap, { UPLOAD_RATE_LIMIT: '1000' })

async function counts() {
  const { rows } = await app.db.query<{ memes: number; media: number; events: number; jobs: number }>(
    `SELECT (SELECT count(*)::int FROM memes) AS memes, (SELECT count(*)::int FROM meme_media) AS media,
            (SELECT count(*)::int FROM upload_events) AS events, (SELECT count(*)::int FROM caption_jobs) AS jobs`,
  )
  return rows[0]
}

test('411 for a request without Content-Length, checked before the body', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/api/memes',
    headers: { ...multipartHeaders, 'transfer-encoding': 'chunked' },
    payload: 'x',
  })
  t.equal(res.statusCode, 411)
  t.match(res.json(), { error: /Content-Length is required/ })
})

test('413 for a declared size over the limit and for a 5 MB + 1 byte file', async (t) => {
  const declared = await app.inject({
    method: 'POST',
    url: '/api/memes',
    headers: { ...multipartHeaders, 'content-length': String(20 * 1024 * 1024) },
    payload: Buffer.alloc(10),
  })
  t.equal(declared.statusCode, 413)
  t.match(declared.json(), { error: /5 MB/ })

  const tooBig = Buffer.concat([craftedPng(10, 10), Buffer.alloc(MB5 + 1 - craftedPng(10, 10).length, 1)])
  t.equal(tooBig.length, MB5 + 1)
  const streamed = await app.inject(uploadRequest(tooBig))
  t.equal(streamed.statusCode, 413, streamed.body)
  t.match(streamed.json(), { error: /5 MB/ })
  t.same(await counts(), { memes: 0, media: 0, events: 0, jobs: 0 }, 'nothing stored, no quota used')
})

test('400 for malformed multipart and for a wrong set of fields', async (t) => {
  const png = await pngImage(3)
  const cases: [string, object, RegExp][] = [
    ['not multipart', { headers: { 'content-type': 'application/json' }, payload: '{"meme":"x"}' }, /multipart\/form-data/],
    ['no boundary', { headers: { 'content-type': 'multipart/form-data' }, payload: 'x' }, /multipart\/form-data/],
    ['garbage body', { headers: multipartHeaders, payload: 'this is not multipart at all' }, /meme' is missing|Malformed/],
    [
      'unterminated body',
      { headers: multipartHeaders, payload: multipart([{ name: 'meme', filename: 'a.png', data: png }]).subarray(0, 200) },
      /Malformed|truncated/,
    ],
    [
      'missing meme',
      { headers: multipartHeaders, payload: multipart([{ name: 'file', filename: 'a.png', data: png }]) },
      /Unexpected file field 'file'/,
    ],
    [
      'meme as a text field',
      { headers: multipartHeaders, payload: multipart([{ name: 'meme', data: 'hello' }]) },
      /must be a file/,
    ],
    [
      'repeated meme',
      {
        headers: multipartHeaders,
        payload: multipart([
          { name: 'meme', filename: 'a.png', data: png },
          { name: 'meme', filename: 'b.png', data: png },
        ]),
      },
      /only once/,
    ],
    [
      'extra field',
      {
        headers: multipartHeaders,
        payload: multipart([
          { name: 'meme', filename: 'a.png', data: png },
          { name: 'caption', data: 'mine' },
        ]),
      },
      /Unexpected field 'caption'/,
    ],
    [
      'extra file',
      {
        headers: multipartHeaders,
        payload: multipart([
          { name: 'meme', filename: 'a.png', data: png },
          { name: 'other', filename: 'b.png', data: png },
        ]),
      },
      /Unexpected file field 'other'/,
    ],
    [
      'empty file',
      { headers: multipartHeaders, payload: multipart([{ name: 'meme', filename: 'a.png', data: Buffer.alloc(0) }]) },
      /empty/,
    ],
    ['empty form', { headers: multipartHeaders, payload: `--${BOUNDARY}--\r\n` }, /missing/],
  ]
  for (const [name, options, message] of cases) {
    const res = await app.inject({ method: 'POST', url: '/api/memes', ...options })
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.match(res.json(), { error: message }, name)
  }
  t.same(await counts(), { memes: 0, media: 0, events: 0, jobs: 0 })
})

test('415 for anything that is not PNG or JPEG by its bytes, whatever its name and type', async (t) => {
  const png = await pngImage(4)
  const gif = await sharp(png).gif().toBuffer()
  const webp = await sharp(png).webp().toBuffer()
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>')
  const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic'), Buffer.alloc(64)])
  const pngZip = Buffer.concat([png, Buffer.from('PK\x03\x04 this is a zip archive glued after IEND')])
  const jpegHtml = Buffer.concat([await jpegImage(4), Buffer.from('<html><script>alert(1)</script></html>')])
  const cases: [string, Buffer][] = [
    ['GIF renamed .png', gif],
    ['WebP', webp],
    ['SVG', svg],
    ['HEIC', heic],
    ['PNG + ZIP polyglot', pngZip],
    ['JPEG + HTML polyglot', jpegHtml],
  ]
  for (const [name, bytes] of cases) {
    const res = await app.inject(uploadRequest(bytes, { filename: 'meme.png', contentType: 'image/png' }))
    t.equal(res.statusCode, 415, `${name}: ${res.body}`)
    t.match(res.json(), { error: /PNG|JPEG/ }, name)
  }
  t.same(await counts(), { memes: 0, media: 0, events: 0, jobs: 0 })
})

test('400 for corrupt, truncated, oversized-edge and pixel-flood images, before any decode', async (t) => {
  const jpeg = await jpegImage(5, 200, 150)
  const cases: [string, Buffer, RegExp][] = [
    ['30000x30000 pixel flood', craftedPng(30000, 30000), /6000 px/],
    ['edge over 6000 px', craftedPng(6001, 10), /6001x10 px/],
    ['over 20 megapixels', craftedPng(5000, 5000), /25000000 pixels/],
    ['truncated JPEG', jpeg.subarray(0, Math.floor(jpeg.length * 0.6)), /truncated/],
    ['truncated PNG', (await pngImage(5)).subarray(0, 100), /truncated/],
    ['corrupt PNG data', craftedPng(10, 10, Buffer.from('definitely not zlib data')), /corrupt/],
  ]
  for (const [name, bytes, message] of cases) {
    const res = await app.inject(uploadRequest(bytes))
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.match(res.json(), { error: message }, name)
  }
  t.same(await counts(), { memes: 0, media: 0, events: 0, jobs: 0 })
})

import sharp from 'sharp'
import tap, { test } from 'tap'
import { buildApp, jpegImage, pngImage, uploadRequest } from './fixtures.ts'

// One app for the normalization tests (default settings); each test looks only at its own memes.
const app = await buildApp(tap)

async function media(id: string): Promise<Buffer> {
  const { rows } = await app.db.query<{ bytes: Uint8Array }>('SELECT bytes FROM meme_media WHERE meme_id = $1', [id])
  return Buffer.from(rows[0].bytes)
}

test('EXIF (GPS included) is stripped and the orientation applied', async (t) => {
  const input = await sharp(await pngImage(60, 60, 30))
    .jpeg()
    .withExif({ IFD0: { Make: 'TestCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
    .withMetadata({ orientation: 6 })
    .toBuffer()
  const inputMeta = await sharp(input).metadata()
  t.equal(inputMeta.orientation, 6, 'fixture is rotated by EXIF')
  t.ok(inputMeta.exif?.includes(Buffer.from([0x25, 0x88])), 'fixture carries a GPS IFD')
  const res = await app.inject(uploadRequest(input, { filename: 'photo.jpg', contentType: 'image/jpeg' }))
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json().meme, { width: 30, height: 60 }, 'auto-oriented: 60x30 rotated to 30x60')
  const stored = await media(res.json().meme.id)
  const meta = await sharp(stored).metadata()
  t.equal(meta.format, 'webp')
  t.equal(meta.exif, undefined, 'no EXIF')
  t.equal(meta.xmp, undefined, 'no XMP')
  t.equal(meta.icc, undefined, 'no ICC profile')
  t.equal(meta.orientation, undefined)
  t.notOk(stored.includes(Buffer.from('Exif')), 'no EXIF chunk in the bytes')
  t.notOk(stored.includes(Buffer.from('TestCam')))
})

test('large images are capped at 2048 px on the longest edge', async (t) => {
  const big = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer()
  const res = await app.inject(uploadRequest(big))
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json().meme, { width: 2048, height: 683 })
  const meta = await sharp(await media(res.json().meme.id)).metadata()
  t.match(meta, { width: 2048, height: 683 })
})

test('the file name is sanitized and capped at 255 characters', async (t) => {
  const long = `${'a'.repeat(300)}.png`
  const res = await app.inject(uploadRequest(await pngImage(61), { filename: long }))
  t.equal(res.json().meme.originalName, 'a'.repeat(255))
  const odd = await app.inject(uploadRequest(await pngImage(62), { filename: 'evil\u202egnp.exe\u0007  name.png' }))
  t.equal(odd.json().meme.originalName, 'evilgnp.exe name.png')
  const accented = await app.inject(uploadRequest(await pngImage(68), { filename: 'café ☕.png' }))
  t.equal(accented.json().meme.originalName, 'café ☕.png', 'UTF-8 names survive')
  const none = await app.inject(uploadRequest(await jpegImage(63), { filename: '', contentType: 'image/jpeg' }))
  t.equal(none.statusCode, 201, none.body)
  t.equal(none.json().meme.originalName, 'meme.jpg', 'an empty name falls back to one of the sniffed type')
})

test('near-duplicates are flagged, not rejected', async (t) => {
  const original = await pngImage(65, 240, 160)
  const a = await app.inject(uploadRequest(original))
  t.equal(a.statusCode, 201)
  const reencoded = await sharp(original).resize(200).jpeg({ quality: 70 }).toBuffer()
  const b = await app.inject(uploadRequest(reencoded, { contentType: 'image/jpeg' }))
  t.equal(b.statusCode, 201, 'a near-duplicate is still accepted')
  const { rows } = await app.db.query<{ id: string; near_duplicate_of: string[]; phash: string }>(
    'SELECT id, near_duplicate_of, phash FROM memes WHERE id = ANY($1::text[]) ORDER BY created_at',
    [[a.json().meme.id, b.json().meme.id]],
  )
  t.ok(rows[1].near_duplicate_of.includes(a.json().meme.id), 'the re-encoded copy points at the original')
  t.match(rows[1].phash, /^[0-9a-f]{16}$/)
  const different = await app.inject(uploadRequest(await pngImage(200, 240, 160)))
  const { rows: third } = await app.db.query<{ near_duplicate_of: string[] }>(
    'SELECT near_duplicate_of FROM memes WHERE id = $1',
    [different.json().meme.id],
  )
  t.notOk(third[0].near_duplicate_of.includes(a.json().meme.id), 'a different picture is not flagged')
})

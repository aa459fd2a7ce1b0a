import { deflateSync } from 'node:zlib'
import type { Random } from '@app/testing/fuzz'
import sharp from 'sharp'
import { pngChunk } from '../support/png-bombs.ts'
import { BOUNDARY, craftedPng, jpegImage, multipart, pngImage } from '../uploads/fixtures.ts'

/** One hostile upload: raw request pieces so broken envelopes can be expressed too. */
export interface HostileUpload {
  name: string
  contentType: string
  payload: Buffer
}

const file = (name: string, data: Buffer, contentType = 'image/png', filename = 'x.png'): HostileUpload => ({
  name,
  contentType: `multipart/form-data; boundary=${BOUNDARY}`,
  payload: multipart([{ name: 'meme', filename, contentType, data }]),
})

/** An APNG: acTL and fcTL chunks put in front of the first IDAT of a plain PNG. */
function animatedPng(png: Buffer): Buffer {
  const ihdrEnd = 8 + 25
  const actl = Buffer.alloc(8)
  actl.writeUInt32BE(2, 0) // two frames announced, one present: readers must cope
  const fctl = Buffer.alloc(26)
  fctl.writeUInt32BE(0, 0)
  fctl.writeUInt32BE(png.readUInt32BE(16), 4)
  fctl.writeUInt32BE(png.readUInt32BE(20), 8)
  fctl.writeUInt16BE(1, 20)
  fctl.writeUInt16BE(10, 22)
  return Buffer.concat([png.subarray(0, ihdrEnd), pngChunk('acTL', actl), pngChunk('fcTL', fctl), png.subarray(ihdrEnd)])
}

/** A JPEG with APP1 (EXIF) segments of junk right after SOI, about `bytes` in all. */
function hugeExif(jpeg: Buffer, bytes: number, random: Random): Buffer {
  const segments: Buffer[] = []
  for (let total = 0; total < bytes; total += 65_535) {
    const header = Buffer.from([0xff, 0xe1, 0xff, 0xff])
    segments.push(Buffer.concat([header, Buffer.from('Exif\0\0'), random.bytes(65_533 - 6)]))
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)])
}

function bitFlip(bytes: Buffer, random: Random, flips: number): Buffer {
  const out = Buffer.from(bytes)
  for (let i = 0; i < flips; i++) {
    const at = random.int(8, out.length - 1)
    out[at] = (out[at] as number) ^ (1 << random.int(0, 7))
  }
  return out
}

/** Hostile uploads: a fixed list, then bit-flipped PNGs and JPEGs made one at a time as they are sent. */
export interface HostileUploads {
  count: number
  cases: Iterable<HostileUpload>
}

/**
 * About `total` upload-specific hostile inputs from a seed: the fixed list, then bit flips (as many PNGs as
 * JPEGs) for the rest. Made lazily: a long run's thousands of flips are never all in memory.
 */
export async function hostileUploads(random: Random, total: number): Promise<HostileUploads> {
  const png = await pngImage(random.int(1, 1000), 160, 120)
  const jpeg = await jpegImage(random.int(1, 1000), 160, 120)
  const base = await pngImage(random.int(1, 1000), 64, 48)
  const cases: HostileUpload[] = [
    file('zero-byte file', Buffer.alloc(0)),
    file('truncated PNG', png.subarray(0, Math.floor(png.length / 2))),
    file('PNG signature only', png.subarray(0, 8)),
    file('truncated JPEG', jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'image/jpeg', 'x.jpg'),
    file('pixel bomb: IHDR 30000x30000', craftedPng(30_000, 30_000)),
    file('pixel bomb: IHDR 6001x10', craftedPng(6001, 10)),
    file('pixel bomb: IHDR 0x0', craftedPng(0, 0)),
    file('pixel bomb: IHDR 2^31x2^31', craftedPng(0x7fffffff, 0x7fffffff)),
    // 4000x4000 RGB of zeros: 48 MB of pixels in about 50 KB of IDAT, inside the documented limits.
    file(
      'decompression bomb within limits',
      craftedPng(4000, 4000, deflateSync(Buffer.alloc(4000 * (4000 * 3 + 1)), { level: 9 })),
    ),
    // The same IDAT declared as 100x100: the decoder must stop at the frame, not inflate everything.
    file(
      'decompression bomb: IDAT far larger than IHDR',
      craftedPng(100, 100, deflateSync(Buffer.alloc(50_000_000), { level: 9 })),
    ),
    file('huge EXIF (4 MB of APP1)', hugeExif(jpeg, 4_000_000, random), 'image/jpeg', 'x.jpg'),
    file('huge EXIF over 5 MB', hugeExif(jpeg, 5_300_000, random), 'image/jpeg', 'x.jpg'),
    file('CMYK JPEG', await sharp(png).toColourspace('cmyk').jpeg().toBuffer(), 'image/jpeg', 'x.jpg'),
    file('16-bit PNG', await sharp(png).toColourspace('rgb16').png().toBuffer()),
    file('animated PNG', animatedPng(base)),
    file('GIF named .png', Buffer.from('GIF89a\u0001\u0000\u0001\u0000\u0000\u0000\u0000;', 'latin1')),
    file('PNG signature + HTML polyglot', Buffer.concat([png.subarray(0, 8), Buffer.from('<script>alert(1)</script>')])),
    file('hostile file name', base, 'image/png', '../../etc/passwd\u0000<img src=x>.png'),
    {
      name: 'boundary mismatch',
      contentType: 'multipart/form-data; boundary=other-boundary',
      payload: multipart([{ name: 'meme', filename: 'x.png', contentType: 'image/png', data: base }]),
    },
    {
      name: 'missing closing boundary',
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      payload: multipart([{ name: 'meme', filename: 'x.png', contentType: 'image/png', data: base }]).subarray(0, -8),
    },
    {
      name: 'overlong boundary',
      contentType: `multipart/form-data; boundary=${'b'.repeat(300)}`,
      payload: multipart([{ name: 'meme', filename: 'x.png', data: base }], 'b'.repeat(300)),
    },
    { name: 'empty boundary', contentType: 'multipart/form-data; boundary=', payload: Buffer.from('--\r\n\r\n--') },
    { name: 'garbage body', contentType: `multipart/form-data; boundary=${BOUNDARY}`, payload: random.bytes(4096) },
    {
      name: 'thousands of parts',
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      payload: multipart(Array.from({ length: 5000 }, (_, i) => ({ name: `f${i}`, data: 'x' }))),
    },
    {
      name: 'thousands of file parts named meme',
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      payload: multipart(Array.from({ length: 3000 }, () => ({ name: 'meme', filename: 'x.png', data: base.subarray(0, 16) }))),
    },
    {
      name: '__proto__ field name',
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      payload: multipart([{ name: '__proto__', filename: 'x.png', contentType: 'image/png', data: base }]),
    },
  ]
  const flipsPerFormat = Math.max(0, Math.ceil((total - cases.length) / 2))
  function* all(): Generator<HostileUpload> {
    yield* cases
    for (let i = 0; i < flipsPerFormat; i++) {
      yield file(`bit-flipped PNG #${i}`, bitFlip(png, random, random.int(1, 8)))
      yield file(`bit-flipped JPEG #${i}`, bitFlip(jpeg, random, random.int(1, 8)), 'image/jpeg', 'x.jpg')
    }
  }
  return { count: cases.length + 2 * flipsPerFormat, cases: all() }
}

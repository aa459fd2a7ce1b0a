import { deflateSync } from 'node:zlib'
import sharp from 'sharp'
import { build } from '../helper.ts'
import { pngChunk } from '../support/png-bombs.ts'

/** A small opaque PNG drawn from a seed: different seeds give different bytes and different pictures. */
export async function pngImage(seed: number, width = 96, height = 64): Promise<Buffer> {
  const hue = (seed * 47) % 360
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="hsl(${hue},70%,55%)"/>
    <circle cx="${(seed * 13) % width}" cy="${(seed * 7) % height}" r="${10 + (seed % 20)}" fill="hsl(${(hue + 180) % 360},70%,30%)"/>
    <rect x="${(seed * 5) % width}" y="${height / 2}" width="${width / 3}" height="${height / 4}" fill="#fff"/>
  </svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

export async function jpegImage(seed: number, width = 96, height = 64): Promise<Buffer> {
  return sharp(await pngImage(seed, width, height))
    .jpeg({ quality: 90 })
    .toBuffer()
}

/**
 * A structurally complete PNG whose IHDR declares any size, with a tiny IDAT: a 30000x30000
 * pixel flood costs a few bytes here and would cost 2.7 GB if anything decoded it.
 */
export function craftedPng(width: number, height: number, idat: Buffer = deflateSync(Buffer.alloc(64))): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

export interface Part {
  name: string
  data: Buffer | string
  filename?: string
  contentType?: string
}

export const BOUNDARY = '----meme-test-boundary-7MA4YWxkTrZu0gW'

/** A multipart/form-data body built byte by byte, so tests control every part. */
export function multipart(parts: Part[], boundary = BOUNDARY): Buffer {
  const pieces: Buffer[] = []
  for (const part of parts) {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.name}"`
        : `form-data; name="${part.name}"; filename="${part.filename}"`
    const headers = [`Content-Disposition: ${disposition}`]
    if (part.contentType) headers.push(`Content-Type: ${part.contentType}`)
    pieces.push(Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`))
    pieces.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data))
    pieces.push(Buffer.from('\r\n'))
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(pieces)
}

/** The inject options of an upload of one `meme` file. */
export function uploadRequest(
  bytes: Buffer,
  { filename = 'meme.png', contentType = 'image/png', ip }: { filename?: string; contentType?: string; ip?: string } = {},
) {
  return {
    method: 'POST' as const,
    url: '/api/memes',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipart([{ name: 'meme', filename, contentType, data: bytes }]),
    ...(ip ? { remoteAddress: ip } : {}),
  }
}

/** The app on a fresh database; its caption workers stay idle so upload tests measure uploads only. */
export function buildApp(t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  return build(t, { env: { CAPTION_CONCURRENCY: '0', ...env } })
}

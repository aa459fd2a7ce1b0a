import { createInflate } from 'node:zlib'
import { MAX_EDGE, MAX_PIXELS } from './process.ts'
import { type ImageMime, walkJpegSegments } from './sniff.ts'

/**
 * Encoders write 1 scan (baseline), about 10 (libjpeg's progressive script) or a few dozen (mozjpeg's
 * searched scripts); 100 leaves room for them all. Each scan walks every block of its components, so
 * thousands of tiny scans cost seconds, and each costs some setup even on a tiny image.
 */
export const MAX_JPEG_SCANS = 100
/**
 * Blocks decoded summed over all scans. All-zero refinement scans, the cheapest blocks to send,
 * cost libjpeg about 90 ns each: 8 million leave room for the colour conversion within a second.
 * libjpeg's own progressive script needs 4.4 million for the largest image allowed (20 megapixels,
 * no chroma subsampling), mozjpeg's 2.8 million.
 */
export const MAX_JPEG_BLOCK_DECODES = 8_000_000
/** Four-component (CMYK/YCCK) JPEGs go through an ICC transform to sRGB: about 70 ns a pixel. */
export const MAX_CMYK_PIXELS = 12_000_000
/** zTXt, compressed iTXt and iCCP chunks: each costs an inflate on the header read and again on decode. */
export const MAX_PNG_COMPRESSED_CHUNKS = 32
/**
 * Their inflated bytes, all together. libvips keeps each text as metadata and copies it along the
 * pipeline: about 20 ms per inflated megabyte, so libpng's 8 MB per chunk times many chunks costs
 * seconds. Real files carry a few kilobytes (XMP, an ICC profile).
 */
export const MAX_PNG_METADATA_BYTES = 4 * 1024 * 1024
/**
 * Image data past the pixel rows is inflated by libpng and thrown away: 5 GB of it fit in a 5 MB
 * file (about a second). Checking means inflating the rows once more, so only streams of at least
 * this size are checked; a smaller one hides at most about 0.2 s.
 */
export const PNG_CHECKED_IDAT_BYTES = 1024 * 1024
/** Inflated bytes tolerated past the rows before a stream counts as hiding data. */
const PNG_SURPLUS_BYTES = 1024 * 1024

/** Huffman-coded sequential (baseline, extended) and progressive frames; arithmetic, lossless and hierarchical are not read. */
const HUFFMAN_FRAMES = new Set([0xc0, 0xc1, 0xc2])
/** Start-of-frame markers: C0-CF except DHT (C4), JPG (C8) and DAC (CC). */
const isFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

interface JpegComponent {
  id: number
  h: number
  v: number
}

interface JpegFrame {
  width: number
  height: number
  components: JpegComponent[]
  hMax: number
  vMax: number
}

function parseFrame(body: Buffer): JpegFrame | string {
  if (body.length < 6) return 'The JPEG frame header is corrupt.'
  const height = body.readUInt16BE(1)
  const width = body.readUInt16BE(3)
  const count = body[5]
  if (width === 0 || height === 0) return 'The JPEG frame header declares no size (a DNL height is not supported).'
  if (count !== 1 && count !== 3 && count !== 4) return `The JPEG has ${count} colour components; 1, 3 or 4 are accepted.`
  if (body.length < 6 + 3 * count) return 'The JPEG frame header is corrupt.'
  const components: JpegComponent[] = []
  for (let i = 0; i < count; i++) {
    const sampling = body[7 + 3 * i]
    const h = sampling >> 4
    const v = sampling & 0x0f
    if (h < 1 || h > 4 || v < 1 || v > 4) return 'The JPEG frame header has invalid sampling factors.'
    components.push({ id: body[6 + 3 * i], h, v })
  }
  const hMax = Math.max(...components.map((c) => c.h))
  const vMax = Math.max(...components.map((c) => c.v))
  return { width, height, components, hMax, vMax }
}

/** Blocks one scan decodes: a single component alone, or whole MCUs (padding blocks included) when interleaved. */
function scanBlocks(frame: JpegFrame, scanned: JpegComponent[]): number {
  const { width, height, hMax, vMax } = frame
  if (scanned.length === 1) {
    const [c] = scanned as [JpegComponent]
    return Math.ceil(Math.ceil((width * c.h) / hMax) / 8) * Math.ceil(Math.ceil((height * c.v) / vMax) / 8)
  }
  const mcus = Math.ceil(width / (8 * hMax)) * Math.ceil(height / (8 * vMax))
  return mcus * scanned.reduce((sum, c) => sum + c.h * c.v, 0)
}

/** What decoding this JPEG would cost, read from its frame and scan headers (a linear pass over the markers). */
export function jpegDecodeCostRefusal(bytes: Buffer): string | null {
  let frame: JpegFrame | null = null
  let refusal: string | null = null
  let scans = 0
  let blocks = 0
  let oversized = false
  const refuse = (message: string) => {
    refusal ??= message
  }
  const complete = walkJpegSegments(bytes, (marker, body) => {
    if (refusal || oversized) return
    if (isFrame(marker)) {
      if (!HUFFMAN_FRAMES.has(marker)) return refuse('Arithmetic-coded, lossless and hierarchical JPEGs are not accepted.')
      if (frame) return refuse('The JPEG has more than one frame header.')
      const parsed = parseFrame(body)
      if (typeof parsed === 'string') return refuse(parsed)
      frame = parsed
      // Too large anyway: the header check refuses it and names the size, the clearer reason.
      if (frame.width > MAX_EDGE || frame.height > MAX_EDGE || frame.width * frame.height > MAX_PIXELS) oversized = true
      else if (frame.components.length === 4 && frame.width * frame.height > MAX_CMYK_PIXELS) {
        refuse(`CMYK JPEGs may have at most ${MAX_CMYK_PIXELS} pixels; convert it to RGB first.`)
      }
      return
    }
    if (marker !== 0xda) return
    if (!frame) return refuse('The JPEG has a scan before its frame header.')
    const count = body[0] ?? 0
    if (count < 1 || count > 4 || body.length < 1 + 2 * count + 3) return refuse('The JPEG scan header is corrupt.')
    const scanned: JpegComponent[] = []
    for (let i = 0; i < count; i++) {
      const component = (frame as JpegFrame).components.find((c) => c.id === body[1 + 2 * i])
      if (!component) return refuse('The JPEG scan header names an unknown component.')
      scanned.push(component)
    }
    scans++
    blocks += scanBlocks(frame, scanned)
    if (scans > MAX_JPEG_SCANS) refuse(`The JPEG has more than ${MAX_JPEG_SCANS} scans; no encoder needs that many.`)
    else if (blocks > MAX_JPEG_BLOCK_DECODES) {
      refuse('The JPEG scans would decode too many blocks (too many progressive passes for its size).')
    }
  })
  if (refusal) return refusal
  if (oversized) return null
  // The structure check already refused files that never end; this only guards a direct call.
  if (!complete || !frame) return 'The JPEG has no frame header or never ends.'
  return null
}

const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
/** Adam7 passes: first column, first row, column step, row step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const

/** Bytes the IDAT stream inflates to for this header: each row's filter byte and its packed samples. */
function pngRowBytes(ihdr: Buffer): number | null {
  const width = ihdr.readUInt32BE(0)
  const height = ihdr.readUInt32BE(4)
  const channels = PNG_CHANNELS[ihdr[9] as number]
  if (!channels) return null
  const bitsPerPixel = (ihdr[8] as number) * channels
  const rows = (w: number, h: number) => (w === 0 || h === 0 ? 0 : h * (1 + Math.ceil((w * bitsPerPixel) / 8)))
  if (ihdr[12] !== 1) return rows(width, height)
  return ADAM7.reduce(
    (sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil(Math.max(0, width - x0) / dx), Math.ceil(Math.max(0, height - y0) / dy)),
    0,
  )
}

/** Inflates on the thread pool, keeping nothing, until the stream ends or passes `limit` bytes; the bytes seen. */
function inflatedSize(data: Buffer, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: 256 * 1024 })
    let total = 0
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length
      if (total > limit) {
        resolve(total)
        inflate.destroy()
      }
    })
    inflate.on('end', () => resolve(total))
    // A corrupt stream is libpng's to refuse, with its own message.
    inflate.on('error', () => resolve(total))
    inflate.end(data)
  })
}

/** The zlib stream inside a zTXt, iCCP or compressed iTXt chunk; null for other chunks and plain text. */
function compressedMetadata(type: string, data: Buffer): Buffer | null {
  const keywordEnd = data.indexOf(0)
  if (keywordEnd === -1) return null
  if (type === 'zTXt' || type === 'iCCP') return data.subarray(keywordEnd + 2)
  if (type !== 'iTXt' || data[keywordEnd + 1] !== 1) return null
  // Then compression method, language tag and translated keyword, each tag NUL-terminated.
  const languageEnd = data.indexOf(0, keywordEnd + 3)
  const translatedEnd = languageEnd === -1 ? -1 : data.indexOf(0, languageEnd + 1)
  return translatedEnd === -1 ? null : data.subarray(translatedEnd + 1)
}

/** What decoding this PNG would cost: compressed metadata and image data beyond what the pixels need. */
export async function pngDecodeCostRefusal(bytes: Buffer): Promise<string | null> {
  let ihdr: Buffer | null = null
  const metadata: Buffer[] = []
  const idat: Buffer[] = []
  for (let offset = 8; offset + 12 <= bytes.length; ) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    const data = bytes.subarray(offset + 8, offset + 8 + length)
    if (type === 'IEND') break
    if (type === 'IHDR' && length === 13) ihdr = data
    else if (type === 'IDAT') idat.push(data)
    else {
      const stream = compressedMetadata(type, data)
      if (stream) metadata.push(stream)
    }
    offset += 12 + length
  }
  if (metadata.length > MAX_PNG_COMPRESSED_CHUNKS) {
    return `The PNG has more than ${MAX_PNG_COMPRESSED_CHUNKS} compressed text or profile chunks.`
  }
  let metadataBytes = 0
  for (const stream of metadata) {
    metadataBytes += await inflatedSize(stream, MAX_PNG_METADATA_BYTES - metadataBytes)
    if (metadataBytes > MAX_PNG_METADATA_BYTES) {
      return `The PNG's compressed text and profile chunks inflate to more than ${MAX_PNG_METADATA_BYTES} bytes.`
    }
  }
  const expected = ihdr ? pngRowBytes(ihdr) : null
  const compressed = idat.reduce((sum, d) => sum + d.length, 0)
  // A missing or invalid header is libpng's to refuse.
  if (expected === null || compressed < PNG_CHECKED_IDAT_BYTES) return null
  if ((await inflatedSize(Buffer.concat(idat, compressed), expected + PNG_SURPLUS_BYTES)) > expected + PNG_SURPLUS_BYTES) {
    return 'The PNG image data inflates to far more than its pixels need.'
  }
  return null
}
/**
 * Refuses, before any decoder runs, an image whose decode would cost far more than its size and
 * pixel count suggest (scan bombs, compressed-chunk bombs, hidden inflate); null when it is bounded.
 * Runs after the structure check (the file ends where its format says).
 */
export function decodeCostRefusal(bytes: Buffer, mime: ImageMime): Promise<string | null> {
  return mime === 'image/png' ? pngDecodeCostRefusal(bytes) : Promise.resolve(jpegDecodeCostRefusal(bytes))
}

import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib'

/** PNG files whose decode costs far more than their pixels: inflate work that libpng does and throws away. */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typeAndData))
  return Buffer.concat([length, typeAndData, crc])
}

function rgbHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // RGB
  return pngChunk('IHDR', ihdr)
}

/** A valid PNG of `width`x`height` black pixels with `chunks` placed before its image data. */
export function blackPng(width: number, height: number, chunks: Buffer[] = []): Buffer {
  const rows = deflateSync(Buffer.alloc(height * (1 + width * 3)))
  return Buffer.concat([
    SIGNATURE,
    rgbHeader(width, height),
    ...chunks,
    pngChunk('IDAT', rows),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** A zTXt chunk whose text inflates to `inflated` bytes (libpng's per-chunk ceiling is 8 MB). */
export function zTxtChunk(inflated = 7_900_000): Buffer {
  const text = deflateSync(Buffer.alloc(inflated, 0x41), { level: 9 })
  return pngChunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), text]))
}

/** A 1x1 PNG whose one zlib stream carries `blocks` x 16 MiB of zeros: libpng inflates all of it after the one row. */
export function hiddenInflatePng(blocks: number): Buffer {
  const blockBytes = 16 * 1024 * 1024
  // A non-final, byte-aligned deflate block with no back-reference before itself: copies chain into one stream.
  const block = deflateRawSync(Buffer.alloc(blockBytes), { level: 9, finishFlush: constants.Z_FULL_FLUSH })
  const total = blocks * blockBytes
  // Adler-32 of `total` zero bytes: a stays 1, b adds 1 per byte.
  const adler = Buffer.alloc(4)
  adler.writeUInt32BE((total % 65521) * 65536 + 1)
  const stream = Buffer.concat([
    Buffer.from([0x78, 0x01]), // zlib header, no preset dictionary
    ...Array.from({ length: blocks }, () => block),
    Buffer.from([0x03, 0x00]), // empty final block (fixed Huffman, end of block)
    adler,
  ])
  return Buffer.concat([SIGNATURE, rgbHeader(1, 1), pngChunk('IDAT', stream), pngChunk('IEND', Buffer.alloc(0))])
}

/** What the leading bytes say a file is; the declared type and file name are never trusted. */
export type ImageMime = 'image/png' | 'image/jpeg'

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

export function sniffImageType(bytes: Buffer): ImageMime | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png'
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg'
  return null
}

/**
 * complete: the container ends where the format says it ends;
 * truncated: it stops before its end marker (or a length runs past the data);
 * trailing: more data follows the end marker (a polyglot: PNG/JPEG glued to a ZIP, HTML, script...).
 */
export type StructureVerdict = 'complete' | 'truncated' | 'trailing'

/** Bytes after the end marker that are only zero padding are tolerated (some encoders pad). */
function verdictAfter(bytes: Buffer, end: number): StructureVerdict {
  for (let i = end; i < bytes.length; i++) if (bytes[i] !== 0) return 'trailing'
  return 'complete'
}

/** Walks the PNG chunk list (length, type, data, CRC) to IEND without decoding anything. */
export function checkPngStructure(bytes: Buffer): StructureVerdict {
  let offset = 8
  let first = true
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    if (first && type !== 'IHDR') return 'truncated'
    first = false
    const next = offset + 12 + length
    if (length > 0x7fffffff || next > bytes.length) return 'truncated'
    if (type === 'IEND') return verdictAfter(bytes, next)
    offset = next
  }
  return 'truncated'
}

/** Markers without a length field: TEM and RST0..RST7. */
const standalone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)

/**
 * Walks JPEG segments and entropy-coded scans to EOI without decoding anything. Complete JPEGs
 * may follow the first (MPF: phone cameras append depth maps or previews); anything else is trailing.
 */
export function checkJpegStructure(bytes: Buffer): StructureVerdict {
  let start = 0
  for (let image = 0; image < 8; image++) {
    const end = jpegEnd(bytes, start)
    if (end === -1) return image === 0 ? 'truncated' : 'trailing'
    let next = end
    while (next < bytes.length && bytes[next] === 0) next++
    if (next >= bytes.length) return 'complete'
    if (bytes[next] !== 0xff || bytes[next + 1] !== 0xd8 || bytes[next + 2] !== 0xff) return 'trailing'
    start = next
  }
  return 'trailing'
}

/** Receives each marker segment of a JPEG in file order: its marker and its body (after the length field). */
export type JpegSegmentVisitor = (marker: number, body: Buffer) => void

/**
 * Walks the segments of the first JPEG in `bytes` (the one a decoder reads), handing each to `visit`;
 * false if it never reaches its EOI.
 */
export function walkJpegSegments(bytes: Buffer, visit: JpegSegmentVisitor): boolean {
  return jpegEnd(bytes, 0, visit) !== -1
}

/** The offset just after the EOI of the JPEG starting at `start`, or -1 if it never ends. */
function jpegEnd(bytes: Buffer, start: number, visit?: JpegSegmentVisitor): number {
  let offset = start + 2 // after SOI
  while (offset < bytes.length) {
    if (bytes[offset] !== 0xff) return -1
    // Fill bytes (0xFF runs) may precede a marker.
    while (offset < bytes.length && bytes[offset] === 0xff) offset++
    if (offset >= bytes.length) return -1
    const marker = bytes[offset++]
    if (marker === 0xd9) return offset
    if (standalone(marker)) continue
    if (offset + 2 > bytes.length) return -1
    const length = bytes.readUInt16BE(offset)
    if (length < 2 || offset + length > bytes.length) return -1
    visit?.(marker, bytes.subarray(offset + 2, offset + length))
    offset += length
    if (marker !== 0xda) continue
    // Entropy-coded data: 0xFF is always followed by 0x00 (stuffing) or RSTn inside a scan.
    for (;;) {
      const ff = bytes.indexOf(0xff, offset)
      if (ff === -1 || ff + 1 >= bytes.length) return -1
      const following = bytes[ff + 1]
      if (following === 0x00 || (following >= 0xd0 && following <= 0xd7) || following === 0xff) {
        offset = following === 0xff ? ff + 1 : ff + 2
        continue
      }
      offset = ff
      break
    }
  }
  return -1
}

export function checkStructure(bytes: Buffer, mime: ImageMime): StructureVerdict {
  return mime === 'image/png' ? checkPngStructure(bytes) : checkJpegStructure(bytes)
}

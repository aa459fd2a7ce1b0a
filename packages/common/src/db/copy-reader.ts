const TAB = 9
const NEWLINE = 10
const BACKSLASH = 92
const QUOTE = 34
const COMMA = 44
const OPEN = 123
const CLOSE = 125
const EMPTY = Buffer.alloc(0)

/**
 * Reads the output of `COPY ... TO` in text format from byte chunks as they arrive, one row at a time, each
 * field on demand (text, integer, number, boolean, text[]) straight from the bytes. Hand-written rather than the
 * driver's row objects: a million-row read then builds only the values the caller keeps (see the catalog's
 * design notes). A raw newline always ends a row (newlines inside values are escaped), so rows split over
 * chunks, mid-field, mid-escape or mid-character, are completed by the next chunk.
 */
export class CopyTextReader {
  private buffer: Buffer = EMPTY
  /** The rest of a chunk whose first bytes completed a straddling row (read after `buffer`). */
  private following: Buffer | undefined
  /** Start of the first byte not yet read as a row. */
  private position = 0
  private count = 0
  // Per field of the current row: byte bounds and whether it holds a backslash (an escape to undo).
  private starts = new Int32Array(32)
  private ends = new Int32Array(32)
  private escaped = new Uint8Array(32)
  private scratch = Buffer.alloc(256)
  private element = Buffer.alloc(256)
  private rawBytes: Buffer = EMPTY
  private rawStart = 0
  private rawEnd = 0

  /** Adds bytes; the rows they complete are read with next(). */
  push(chunk: Uint8Array): void {
    let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    if (this.following) {
      // Pushed before next() reached the previous chunk: keep it whole (callers read all rows before pushing).
      bytes = Buffer.concat([this.following, bytes])
      this.following = undefined
    }
    if (this.position === this.buffer.length) {
      this.buffer = bytes
      this.position = 0
      return
    }
    // A row straddles the chunks: only its two parts are copied together; the chunk's other rows are read in place.
    const newline = bytes.indexOf(NEWLINE)
    if (newline < 0) {
      this.buffer = Buffer.concat([this.buffer.subarray(this.position), bytes])
      this.position = 0
      return
    }
    this.buffer = Buffer.concat([this.buffer.subarray(this.position), bytes.subarray(0, newline + 1)])
    this.position = 0
    this.following = newline + 1 < bytes.length ? bytes.subarray(newline + 1) : undefined
  }

  /** Moves to the next complete row; false when the bytes pushed so far hold none. */
  next(): boolean {
    if (this.position === this.buffer.length && this.following) {
      this.buffer = this.following
      this.position = 0
      this.following = undefined
    }
    const buffer = this.buffer
    const end = buffer.indexOf(NEWLINE, this.position)
    if (end < 0) return false
    let field = 0
    let start = this.position
    let escaped = 0
    for (let i = start; i < end; i++) {
      const byte = buffer[i]
      if (byte === TAB) {
        this.setField(field++, start, i, escaped)
        start = i + 1
        escaped = 0
      } else if (byte === BACKSLASH) {
        escaped = 1
        i++ // the escaped byte is never a separator (an escaped tab is the letter t)
      }
    }
    this.setField(field++, start, end, escaped)
    this.count = field
    this.position = end + 1
    return true
  }

  /** Fields in the current row. */
  get fieldCount(): number {
    return this.count
  }

  /** Call when the input ended: throws when bytes of an unfinished row are left. */
  end(): void {
    if (this.position < this.buffer.length || this.following) throw new Error('COPY output ended with an incomplete row')
  }

  isNull(i: number): boolean {
    this.check(i)
    const start = this.starts[i]
    return this.ends[i] - start === 2 && this.buffer[start] === BACKSLASH && this.buffer[start + 1] === 78 // N
  }

  text(i: number): string | null {
    if (this.isNull(i)) return null
    this.raw(i)
    return this.rawBytes.toString('utf8', this.rawStart, this.rawEnd)
  }

  /** A whole number within ±2^53 (int2, int4, int8). */
  integer(i: number): number {
    this.value(i)
    const bytes = this.rawBytes
    const end = this.rawEnd
    let at = this.rawStart
    const negative = bytes[at] === 45 // -
    if (negative || bytes[at] === 43) at++ // +
    if (at === end) throw new Error(`COPY field ${i} is not an integer`)
    let value = 0
    for (; at < end; at++) {
      const digit = bytes[at] - 48
      if (digit < 0 || digit > 9) throw new Error(`COPY field ${i} is not an integer`)
      value = value * 10 + digit
    }
    return negative ? -value : value
  }

  /** Any numeric value (float8, numeric). */
  number(i: number): number {
    this.value(i)
    const text = this.rawBytes.toString('latin1', this.rawStart, this.rawEnd)
    const value = Number(text)
    if (text === '' || Number.isNaN(value)) throw new Error(`COPY field ${i} is not a number`)
    return value
  }

  boolean(i: number): boolean {
    this.value(i)
    const bytes = this.rawBytes
    const start = this.rawStart
    const end = this.rawEnd
    if (end - start === 1 && bytes[start] === 116) return true // t
    if (end - start === 1 && bytes[start] === 102) return false // f
    throw new Error(`COPY field ${i} is not a boolean`)
  }

  /** A one-dimensional text[] without NULL elements, or null for a NULL field. */
  textArray(i: number): string[] | null {
    if (this.isNull(i)) return null
    this.raw(i)
    const bytes = this.rawBytes
    const start = this.rawStart
    const end = this.rawEnd
    if (end - start < 2 || bytes[start] !== OPEN || bytes[end - 1] !== CLOSE) throw new Error(`COPY field ${i} is not an array`)
    const items: string[] = []
    if (end - start === 2) return items
    let at = start + 1
    const last = end - 1
    if (this.element.length < end - start) this.element = Buffer.alloc(2 * (end - start))
    const element = this.element
    for (;;) {
      let length = 0
      if (bytes[at] === QUOTE) {
        for (at++; ; at++) {
          if (at >= last) throw new Error(`COPY field ${i} is not an array: unclosed quote`)
          let byte = bytes[at]
          if (byte === QUOTE) break
          if (byte === BACKSLASH) byte = bytes[++at]
          element[length++] = byte
        }
        at++
      } else {
        const from = at
        for (; at < last && bytes[at] !== COMMA; at++) {
          const byte = bytes[at]
          if (byte === OPEN) throw new Error(`COPY field ${i} is not a one-dimensional array`)
          element[length++] = byte === BACKSLASH ? bytes[++at] : byte
        }
        if (at - from === 4 && /^null$/i.test(bytes.toString('latin1', from, at))) {
          throw new Error(`COPY field ${i} has a NULL element`)
        }
      }
      items.push(element.toString('utf8', 0, length))
      if (at === last) return items
      if (bytes[at] !== COMMA) throw new Error(`COPY field ${i} is not an array`)
      at++
    }
  }

  private setField(field: number, start: number, end: number, escaped: number) {
    if (field === this.starts.length) {
      const grow = <T extends Int32Array | Uint8Array>(array: T, make: (n: number) => T) => {
        const next = make(array.length * 2)
        next.set(array)
        return next
      }
      this.starts = grow(this.starts, (n) => new Int32Array(n))
      this.ends = grow(this.ends, (n) => new Int32Array(n))
      this.escaped = grow(this.escaped, (n) => new Uint8Array(n))
    }
    this.starts[field] = start
    this.ends[field] = end
    this.escaped[field] = escaped
  }

  private check(i: number) {
    if (i < 0 || i >= this.count) throw new Error(`COPY row has no field ${i}`)
  }

  /** A non-NULL field's bytes (see raw). */
  private value(i: number) {
    if (this.isNull(i)) throw new Error(`COPY field ${i} is NULL`)
    this.raw(i)
  }

  /** Points rawBytes[rawStart, rawEnd) at field i with COPY's escapes undone (no object per call: hot path). */
  private raw(i: number): void {
    const start = this.starts[i]
    const end = this.ends[i]
    if (!this.escaped[i]) {
      this.rawBytes = this.buffer
      this.rawStart = start
      this.rawEnd = end
      return
    }
    if (this.scratch.length < end - start) this.scratch = Buffer.alloc(2 * (end - start))
    this.rawBytes = this.scratch
    this.rawStart = 0
    this.rawEnd = unescapeInto(this.buffer, start, end, this.scratch)
  }
}

const ESCAPES: Record<number, number> = { 98: 8, 102: 12, 110: 10, 114: 13, 116: 9, 118: 11 } // b f n r t v
const isOctal = (byte: number) => byte >= 48 && byte <= 55
const hexValue = (byte: number) =>
  byte >= 48 && byte <= 57 ? byte - 48 : byte >= 97 && byte <= 102 ? byte - 87 : byte >= 65 && byte <= 70 ? byte - 55 : -1

/** COPY text escapes undone from source[start, end) into target; returns the length written. */
function unescapeInto(source: Buffer, start: number, end: number, target: Buffer): number {
  let length = 0
  for (let at = start; at < end; at++) {
    const byte = source[at]
    if (byte !== BACKSLASH || at + 1 === end) {
      target[length++] = byte
      continue
    }
    const next = source[++at]
    if (isOctal(next)) {
      let value = next - 48
      for (let n = 1; n < 3 && at + 1 < end && isOctal(source[at + 1]); n++) value = value * 8 + source[++at] - 48
      target[length++] = value & 0xff
    } else if (next === 120 && at + 1 < end && hexValue(source[at + 1]) >= 0) {
      let value = hexValue(source[++at])
      if (at + 1 < end && hexValue(source[at + 1]) >= 0) value = value * 16 + hexValue(source[++at])
      target[length++] = value
    } else target[length++] = ESCAPES[next] ?? next
  }
  return length
}

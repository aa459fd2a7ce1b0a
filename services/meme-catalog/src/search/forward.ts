/**
 * Which postings each slot appears in (needed to remove or replace a document): per slot its term ids sorted,
 * stored as varint gaps in one byte arena (no JS array per document, nothing for the GC to scan). Gaps between
 * sorted ids of a vocabulary of thousands take one or two bytes, against four for a plain Int32Array.
 */
export class ForwardIndex {
  private arena = new Uint8Array(4096)
  private end = 0
  private wasted = 0
  private start = new Int32Array(0)
  private bytes = new Int32Array(0)
  private count = new Int32Array(0)
  /** get()'s result buffer. */
  private decoded = new Int32Array(256)

  /** Makes room for slots below capacity. */
  grow(capacity: number): void {
    this.start = resized(this.start, capacity)
    this.bytes = resized(this.bytes, capacity)
    this.count = resized(this.count, capacity)
  }

  /** Bytes used by the slots recorded so far (with dead space), and room for `more` bytes made at once. */
  get used(): number {
    return this.end
  }

  reserve(more: number): void {
    // Exact for a first load; by half after, so a load in batches grows the arena geometrically.
    if (this.end + more > this.arena.length) this.makeRoom(more, this.end === 0 ? 1 : 1.5)
  }

  /** Records the term ids of a slot (replacing what it had); sorts ids[0, n) in place. */
  set(slot: number, ids: Int32Array, n: number): void {
    ids.subarray(0, n).sort()
    this.setSorted(slot, ids, n)
  }

  /** set() for ids[0, n) already ascending and distinct. */
  setSorted(slot: number, sorted: Int32Array, n: number): void {
    this.delete(slot)
    // A varint of a 31-bit gap takes at most 5 bytes.
    if (this.end + n * 5 > this.arena.length) this.makeRoom(n * 5)
    const arena = this.arena
    let at = this.end
    let previous = 0
    for (let i = 0; i < n; i++) {
      let gap = sorted[i] - previous
      previous = sorted[i]
      while (gap >= 0x80) {
        arena[at++] = (gap & 0x7f) | 0x80
        gap >>>= 7
      }
      arena[at++] = gap
    }
    this.start[slot] = this.end
    this.bytes[slot] = at - this.end
    this.count[slot] = n
    this.end = at
  }

  /** The term ids of a slot, ascending: a view, valid until the next get(). */
  get(slot: number): Int32Array {
    const n = this.count[slot]
    if (n > this.decoded.length) this.decoded = new Int32Array(n * 2)
    return this.decoded.subarray(0, this.decodeInto(slot, this.decoded))
  }

  /** Decodes the term ids of a slot, ascending, into out (long enough for them); returns how many. */
  decodeInto(slot: number, out: Int32Array): number {
    const n = this.count[slot]
    const arena = this.arena
    let at = this.start[slot]
    let value = 0
    for (let i = 0; i < n; i++) {
      let gap = 0
      let shift = 0
      let byte: number
      do {
        byte = arena[at++]
        gap |= (byte & 0x7f) << shift
        shift += 7
      } while (byte & 0x80)
      value += gap
      out[i] = value
    }
    return n
  }

  delete(slot: number): void {
    this.wasted += this.bytes[slot]
    this.bytes[slot] = 0
    this.count[slot] = 0
  }

  clear(): void {
    this.arena = new Uint8Array(4096)
    this.end = 0
    this.wasted = 0
    this.bytes.fill(0)
    this.count.fill(0)
  }

  /** Compacts when half the arena is dead space, else grows it by half (bounded slack for large indexes). */
  private makeRoom(needed: number, growth = 1.5): void {
    const live = this.end - this.wasted
    const size = Math.max(4096, this.wasted > live ? (live + needed) * 2 : Math.ceil((this.end + needed) * growth))
    const arena = new Uint8Array(size)
    if (this.wasted === 0) {
      // Nothing dead: the used bytes move as one block and every slot keeps its offset.
      arena.set(this.arena.subarray(0, this.end))
      this.arena = arena
      return
    }
    let end = 0
    for (let slot = 0; slot < this.bytes.length; slot++) {
      const length = this.bytes[slot]
      if (length === 0) continue
      arena.set(this.arena.subarray(this.start[slot], this.start[slot] + length), end)
      this.start[slot] = end
      end += length
    }
    this.arena = arena
    this.end = end
    this.wasted = 0
  }
}

function resized(values: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(capacity)
  next.set(values.subarray(0, Math.min(capacity, values.length)))
  return next
}

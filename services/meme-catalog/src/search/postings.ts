import type { ImpactOrder } from './impacts.ts'

/** Bitset words per rank directory entry (8: the directory is an eighth of the bitset, a lookup adds up to 7 popcounts). */
const RANK_SHIFT = 3

/**
 * A term's postings: the document slots containing it, ascending, with the term frequency of each, in
 * parallel typed arrays (no object per posting, cheap to scan and to gallop through). A list holding a large
 * share of the slots also keeps a bitset of them (see attachBits), kept current by add and remove.
 */
export class Postings {
  docs: Int32Array
  tfs: Uint16Array
  length = 0
  /** Bit s of word s >> 5 is set when slot s is in the list; null until attachBits. */
  bits: Int32Array | null = null
  /** Postings before each block of 2^RANK_SHIFT words of bits (positions in O(1)); null when stale, rebuilt on use. */
  private ranks: Int32Array | null = null
  private rankBuffer: Int32Array | null = null
  /**
   * The list's best postings by impact for the threshold top-k (see ImpactOrder); null when stale or never built.
   * Appends keep it (they are read apart, after its `built` postings); any other change drops it.
   */
  impacts: ImpactOrder | null = null
  /** Largest term frequency ever added (an upper bound: removals do not lower it). */
  maxTf = 0

  constructor(
    readonly term: string,
    /** Index-wide id (the forward index stores these). */
    readonly id: number,
  ) {
    this.docs = new Int32Array(4)
    this.tfs = new Uint16Array(4)
  }

  /** Counts one more occurrence of the term in slot; returns true when the slot is new to this list. */
  add(slot: number): boolean {
    const n = this.length
    // Documents are mostly added in increasing slot order, so the end is checked first.
    if (n > 0 && this.docs[n - 1] === slot) {
      this.countAgain(n - 1)
      return false
    }
    if (n === 0 || this.docs[n - 1] < slot) {
      this.ensureCapacity(n + 1)
      this.docs[n] = slot
      this.tfs[n] = 1
      this.length = n + 1
    } else {
      // Not at the end: positions move, the impact copy no longer tells which postings it holds.
      this.impacts = null
      const at = lowerBound(this.docs, 0, n, slot)
      if (this.docs[at] === slot) {
        this.countAgain(at)
        return false
      }
      this.ensureCapacity(n + 1)
      this.docs.copyWithin(at + 1, at, n)
      this.tfs.copyWithin(at + 1, at, n)
      this.docs[at] = slot
      this.tfs[at] = 1
      this.length = n + 1
    }
    if (this.maxTf === 0) this.maxTf = 1
    if (this.bits !== null) {
      if (slot >> 5 >= this.bits.length) this.growBits((slot >> 5) + 1)
      this.bits[slot >> 5] |= 1 << (slot & 31)
      this.ranks = null
    }
    return true
  }

  /** Makes room for `extra` more postings at once (a batch build: one allocation per list and batch, see appended). */
  reserve(extra: number): void {
    this.ensureCapacity(this.length + extra)
  }

  /**
   * Settles postings [length, end) written straight into docs and tfs (a batch flush, after reserve), every
   * slot above the list's last and every tf at most maxTf.
   */
  appended(end: number, maxTf: number): void {
    if (maxTf > this.maxTf) this.maxTf = maxTf
    if (this.bits !== null && end > this.length) {
      const last = this.docs[end - 1] as number
      if (last >> 5 >= this.bits.length) this.growBits((last >> 5) + 1)
      for (let k = this.length; k < end; k++) this.bits[this.docs[k] >> 5] |= 1 << (this.docs[k] & 31)
      this.ranks = null
    }
    this.length = end
  }

  /** Builds the bitset of the list (then maintained by add and remove); `words` 32-bit words at least. */
  attachBits(words: number): Int32Array {
    const bits = new Int32Array(Math.max(words, this.length > 0 ? (this.docs[this.length - 1] >> 5) + 1 : 0))
    const { docs, length } = this
    for (let k = 0; k < length; k++) bits[docs[k] >> 5] |= 1 << (docs[k] & 31)
    this.bits = bits
    return bits
  }

  /** Position of slot in docs, or -1: O(1) through the rank of its bit when the list has a bitset. */
  indexOf(slot: number): number {
    const bits = this.bits
    if (bits !== null) {
      const w = slot >> 5
      if (w >= bits.length) return -1
      const word = bits[w]
      const bit = 1 << (slot & 31)
      if ((word & bit) === 0) return -1
      const ranks = this.ranks ?? this.buildRanks()
      let at = ranks[w >> RANK_SHIFT]
      for (let i = (w >> RANK_SHIFT) << RANK_SHIFT; i < w; i++) at += popcount(bits[i])
      return at + popcount(word & (bit - 1))
    }
    const at = lowerBound(this.docs, 0, this.length, slot)
    return at < this.length && this.docs[at] === slot ? at : -1
  }

  private buildRanks(): Int32Array {
    const bits = this.bits as Int32Array
    const blocks = (bits.length + (1 << RANK_SHIFT) - 1) >> RANK_SHIFT
    if (this.rankBuffer === null || this.rankBuffer.length !== blocks) this.rankBuffer = new Int32Array(blocks)
    const ranks = this.rankBuffer
    let before = 0
    for (let w = 0; w < bits.length; w++) {
      if ((w & ((1 << RANK_SHIFT) - 1)) === 0) ranks[w >> RANK_SHIFT] = before
      before += popcount(bits[w])
    }
    this.ranks = ranks
    return ranks
  }

  private countAgain(at: number): void {
    if (this.impacts !== null && at < this.impacts.built) this.impacts = null
    if (this.tfs[at] < 0xffff) this.tfs[at]++
    if (this.tfs[at] > this.maxTf) this.maxTf = this.tfs[at]
  }

  private growBits(words: number): void {
    const bits = new Int32Array(Math.max(words, (this.bits?.length ?? 0) * 2))
    if (this.bits) bits.set(this.bits)
    this.bits = bits
  }

  remove(slot: number): void {
    const n = this.length
    const at = lowerBound(this.docs, 0, n, slot)
    if (at >= n || this.docs[at] !== slot) return
    this.impacts = null
    this.docs.copyWithin(at, at + 1, n)
    this.tfs.copyWithin(at, at + 1, n)
    this.length = n - 1
    if (this.bits !== null) {
      this.bits[slot >> 5] &= ~(1 << (slot & 31))
      this.ranks = null
    }
    // Give memory back when a list shrank to a quarter of its capacity.
    if (this.docs.length > 16 && this.length * 4 < this.docs.length) this.resize(this.docs.length >> 1)
  }

  private ensureCapacity(needed: number): void {
    const capacity = this.docs.length
    // Long lists grow by half, not double: at a million documents the slack of doubling is tens of MB.
    if (needed > capacity)
      this.resize(this.length === 0 ? needed : Math.max(needed, capacity < 4096 ? capacity * 2 : capacity + (capacity >> 1)))
  }

  private resize(capacity: number): void {
    const docs = new Int32Array(capacity)
    docs.set(this.docs.subarray(0, this.length))
    const tfs = new Uint16Array(capacity)
    tfs.set(this.tfs.subarray(0, this.length))
    this.docs = docs
    this.tfs = tfs
  }
}

/** Number of set bits of a 32-bit word. */
export function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24
}

/** First index in [from, to) whose value is >= target (to when none). */
export function lowerBound(values: Int32Array, from: number, to: number, target: number): number {
  let lo = from
  let hi = to
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid] < target) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** lowerBound from a cursor known to hold a smaller value, probing 1, 2, 4... ahead: cheap for close targets. */
export function gallopTo(values: Int32Array, from: number, to: number, target: number): number {
  let step = 1
  let lo = from
  let hi = from + 1
  while (hi < to && values[hi] < target) {
    lo = hi
    step <<= 1
    hi = lo + step
  }
  hi = Math.min(hi, to)
  // Invariant: values[lo] < target and (hi === to or values[hi] >= target).
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid] < target) lo = mid
    else hi = mid
  }
  return hi
}

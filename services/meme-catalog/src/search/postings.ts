/**
 * A term's postings: the document slots containing it, ascending, with the term frequency of each, in
 * parallel typed arrays (no object per posting, cheap to scan and to gallop through).
 */
export class Postings {
  docs: Int32Array
  tfs: Uint16Array
  length = 0

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
      if (this.tfs[n - 1] < 0xffff) this.tfs[n - 1]++
      return false
    }
    if (n === 0 || this.docs[n - 1] < slot) {
      this.ensureCapacity(n + 1)
      this.docs[n] = slot
      this.tfs[n] = 1
      this.length = n + 1
      return true
    }
    const at = lowerBound(this.docs, 0, n, slot)
    if (this.docs[at] === slot) {
      if (this.tfs[at] < 0xffff) this.tfs[at]++
      return false
    }
    this.ensureCapacity(n + 1)
    this.docs.copyWithin(at + 1, at, n)
    this.tfs.copyWithin(at + 1, at, n)
    this.docs[at] = slot
    this.tfs[at] = 1
    this.length = n + 1
    return true
  }

  remove(slot: number): void {
    const n = this.length
    const at = lowerBound(this.docs, 0, n, slot)
    if (at >= n || this.docs[at] !== slot) return
    this.docs.copyWithin(at, at + 1, n)
    this.tfs.copyWithin(at, at + 1, n)
    this.length = n - 1
    // Give memory back when a list shrank to a quarter of its capacity.
    if (this.docs.length > 16 && this.length * 4 < this.docs.length) this.resize(this.docs.length >> 1)
  }

  private ensureCapacity(needed: number): void {
    if (needed > this.docs.length) this.resize(Math.max(needed, this.docs.length * 2))
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

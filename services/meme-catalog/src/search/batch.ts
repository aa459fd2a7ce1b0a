import type { Postings } from './postings.ts'

/**
 * The postings of a batch of new documents, gathered before any list grows (see the engine's upsertMany):
 * per document its distinct term ids with their frequencies, and per term how many documents of the batch
 * hold it. flush() then grows each list once, to its exact size when it was empty, and appends in slot order.
 * One by one, a million documents grow thousands of lists dozens of times each, and that garbage of typed
 * arrays drives the major GCs that mark the caller's documents.
 */
export class PostingsBatch {
  private slots = new Int32Array(1024)
  private ends = new Int32Array(1024)
  private ids = new Int32Array(16_384)
  private tfs = new Uint16Array(16_384)
  private counts = new Int32Array(1024)
  private documents = 0
  private entries = 0

  /** Postings recorded so far; reserve makes room for `more` at once (a load that knows its size). */
  get recorded(): number {
    return this.entries
  }

  reserve(more: number): void {
    if (this.entries + more <= this.ids.length) return
    this.ids = grown(this.ids, new Int32Array(this.entries + more))
    this.tfs = grown(this.tfs, new Uint16Array(this.entries + more))
  }

  /**
   * Records the terms of a new slot, above every slot of every list: sorts termIds[0, n) in place and leaves
   * the distinct ids at its start; returns how many.
   */
  add(slot: number, termIds: Int32Array, n: number): number {
    sortInts(termIds, n)
    if (this.entries + n > this.ids.length) {
      const size = Math.max(this.entries + n, this.ids.length * 2)
      this.ids = grown(this.ids, new Int32Array(size))
      this.tfs = grown(this.tfs, new Uint16Array(size))
    }
    if (this.documents === this.slots.length) {
      this.slots = grown(this.slots, new Int32Array(this.documents * 2))
      this.ends = grown(this.ends, new Int32Array(this.documents * 2))
    }
    const { ids, tfs } = this
    let counts = this.counts
    let e = this.entries
    let distinct = 0
    for (let i = 0; i < n; ) {
      const id = termIds[i]
      let j = i + 1
      while (j < n && termIds[j] === id) j++
      termIds[distinct++] = id
      ids[e] = id
      tfs[e++] = Math.min(j - i, 0xffff)
      if (id >= counts.length) {
        counts = grown(counts, new Int32Array(Math.max(id + 1, counts.length * 2)))
        this.counts = counts
      }
      counts[id]++
      i = j
    }
    this.entries = e
    this.slots[this.documents] = slot
    this.ends[this.documents++] = e
    return distinct
  }

  /** Appends every recorded posting to its list (byId: lists by term id) and empties the batch. */
  flush(byId: (Postings | undefined)[]): void {
    const { counts, ids, tfs, slots, ends } = this
    for (let id = 0; id < counts.length; id++) {
      if (counts[id] === 0) continue
      ;(byId[id] as Postings).reserve(counts[id])
      counts[id] = 0
    }
    let e = 0
    for (let d = 0; d < this.documents; d++) {
      const slot = slots[d]
      for (const end = ends[d]; e < end; e++) (byId[ids[e]] as Postings).append(slot, tfs[e])
    }
    this.documents = 0
    this.entries = 0
    // A load's buffers hold every posting of the batch once: give them back rather than keep them for the next.
    if (this.ids.length > 1 << 20) {
      this.ids = new Int32Array(16_384)
      this.tfs = new Uint16Array(16_384)
    }
    if (this.slots.length > 1 << 16) {
      this.slots = new Int32Array(1024)
      this.ends = new Int32Array(1024)
    }
  }
}

function grown<T extends Int32Array | Uint16Array>(from: T, to: T): T {
  to.set(from)
  return to
}

/** Sorts values[0, n) ascending: insertion sort for a caption's few dozen ids, the typed-array sort beyond. */
function sortInts(values: Int32Array, n: number): void {
  if (n > 48) {
    values.subarray(0, n).sort()
    return
  }
  for (let i = 1; i < n; i++) {
    const v = values[i]
    let j = i - 1
    while (j >= 0 && values[j] > v) {
      values[j + 1] = values[j]
      j--
    }
    values[j + 1] = v
  }
}

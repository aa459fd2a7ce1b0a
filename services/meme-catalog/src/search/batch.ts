import type { ForwardIndex } from './forward.ts'
import { grown } from './grown.ts'
import type { Postings } from './postings.ts'

/**
 * The postings of a batch of new documents, gathered before any list grows (see the engine's upsertMany):
 * per document its distinct term ids (kept by the forward index) with their frequencies, and per term how many
 * documents of the batch hold it. flush() then grows each list once, to its exact size when it was empty, and
 * appends in slot order.
 * One by one, a million documents grow thousands of lists dozens of times each, and that garbage of typed
 * arrays drives the major GCs that mark the caller's documents.
 */
export class PostingsBatch {
  private slots = new Int32Array(1024)
  /** Per posting, in the order of the documents and of their sorted term ids (the forward index holds the ids). */
  private tfs = new Uint16Array(16_384)
  private counts = new Int32Array(1024)
  private documents = 0
  private entries = 0
  /** Most distinct terms of one document so far (flush decodes each document's ids into a buffer this long). */
  private widest = 0

  /** Postings recorded so far; reserve makes room for `more` at once (a load that knows its size). */
  get recorded(): number {
    return this.entries
  }

  reserve(more: number): void {
    if (this.entries + more <= this.tfs.length) return
    this.tfs = grown(this.tfs, new Uint16Array(this.entries + more))
  }

  /**
   * Records the terms of a new slot, above every slot of every list: sorts termIds[0, n) in place and leaves
   * the distinct ids at its start; returns how many. The caller stores those in the forward index, which
   * flush reads them back from.
   */
  add(slot: number, termIds: Int32Array, n: number): number {
    sortInts(termIds, n)
    if (this.entries + n > this.tfs.length)
      this.tfs = grown(this.tfs, new Uint16Array(Math.max(this.entries + n, this.tfs.length * 2)))
    if (this.documents === this.slots.length) this.slots = grown(this.slots, new Int32Array(this.documents * 2))
    const tfs = this.tfs
    let counts = this.counts
    let e = this.entries
    let distinct = 0
    for (let i = 0; i < n; ) {
      const id = termIds[i]
      let j = i + 1
      while (j < n && termIds[j] === id) j++
      termIds[distinct++] = id
      tfs[e++] = Math.min(j - i, 0xffff)
      if (id >= counts.length) {
        counts = grown(counts, new Int32Array(Math.max(id + 1, counts.length * 2)))
        this.counts = counts
      }
      counts[id]++
      i = j
    }
    this.entries = e
    this.slots[this.documents++] = slot
    if (distinct > this.widest) this.widest = distinct
    return distinct
  }

  /**
   * Appends every recorded posting to its list (byId: lists by term id; forward: the documents' term ids) and
   * empties the batch. Writes straight into each list's arrays, grown once to fit, then settles each list.
   */
  flush(byId: readonly (Postings | undefined)[], forward: ForwardIndex): void {
    const { counts, tfs, slots } = this
    const terms = counts.length
    // Per term: its list's arrays and the next position to write.
    const docsOf: Int32Array[] = new Array(terms)
    const tfsOf: Uint16Array[] = new Array(terms)
    const at = new Int32Array(terms)
    const maxTf = new Uint16Array(terms)
    for (let id = 0; id < terms; id++) {
      if (counts[id] === 0) continue
      const list = byId[id] as Postings
      list.reserve(counts[id])
      docsOf[id] = list.docs
      tfsOf[id] = list.tfs
      at[id] = list.length
    }
    const ids = new Int32Array(this.widest)
    let e = 0
    for (let d = 0; d < this.documents; d++) {
      const slot = slots[d]
      const n = forward.decodeInto(slot, ids)
      for (let k = 0; k < n; k++) {
        const id = ids[k]
        const tf = tfs[e++]
        const p = at[id]++
        ;(docsOf[id] as Int32Array)[p] = slot
        ;(tfsOf[id] as Uint16Array)[p] = tf
        if (tf > maxTf[id]) maxTf[id] = tf
      }
    }
    for (let id = 0; id < terms; id++) {
      if (counts[id] === 0) continue
      ;(byId[id] as Postings).appended(at[id], maxTf[id])
      counts[id] = 0
    }
    this.documents = 0
    this.entries = 0
    this.widest = 0
    // A load's buffers hold every posting of the batch once: give them back rather than keep them for the next.
    if (this.tfs.length > 1 << 20) this.tfs = new Uint16Array(16_384)
    if (this.slots.length > 1 << 16) this.slots = new Int32Array(1024)
  }
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

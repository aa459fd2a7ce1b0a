import type { Postings } from './postings.ts'

/** Groups are keyed by tf (up to TF_KEYS - 1) and document length (up to LENGTH_KEYS - 1); larger values share the last key. */
const TF_KEYS = 16
const LENGTH_KEYS = 256

/** Segment of postings read in one go by the threshold top-k: no posting of it scores above bound. */
export interface Segment {
  docs: Int32Array
  /** Term frequencies by position in docs; null in an impact group, whose postings have tf at most `tf`. */
  tfs: Uint16Array | null
  tf: number
  from: number
  to: number
  /** The list's match tier and BM25 factor for the query word. */
  tier: number
  factor: number
  bound: number
  /** The copy whose cut this segment reads past (the rest of a large list), told so when it is read. */
  cut: ImpactOrder | null
}

/**
 * The best postings of a large list by impact, for the threshold top-k to stop after the first few thousand:
 * postings grouped by (tf, document length), the groups best first, each group in slot order. Only the first
 * `stored` postings are kept (a bounded copy); a group's bound comes from its largest tf and shortest document,
 * so it holds whatever BM25's constants are at query time. Built on first use; postings appended since (new
 * memes) are read whole beside it, any other change to the list drops it.
 */
export class ImpactOrder {
  /** Set when a query read past the stored postings: the next query builds a deeper copy (see listSegments). */
  cutShort = false

  private constructor(
    readonly docs: Int32Array,
    /** Length of the list when the copy was made: later postings were appended (see Postings.add). */
    readonly built: number,
    /** Per group: where its stored postings start and end, whether it is stored whole, its largest tf and shortest document. */
    private readonly starts: Int32Array,
    private readonly ends: Int32Array,
    private readonly whole: Uint8Array,
    private readonly maxTf: Uint16Array,
    private readonly minLength: Uint32Array,
  ) {}

  /**
   * Groups the list's postings by impact under BM25's current constants (c1, c2: see Bm25) and keeps the first
   * `stored` of them.
   */
  static build(list: Postings, docLength: Uint32Array, c1: number, c2: number, stored: number): ImpactOrder {
    const { docs, tfs, length } = list
    const keys = TF_KEYS * LENGTH_KEYS
    const counts = new Int32Array(keys)
    const maxTf = new Uint16Array(keys)
    const minLength = new Uint32Array(keys).fill(0xffffffff)
    for (let p = 0; p < length; p++) {
      const tf = tfs[p]
      const len = docLength[docs[p]]
      const key = keyOf(tf, len)
      counts[key]++
      if (tf > maxTf[key]) maxTf[key] = tf
      if (len < minLength[key]) minLength[key] = len
    }
    const used: number[] = []
    for (let key = 0; key < keys; key++) if (counts[key] > 0) used.push(key)
    const impact = (key: number) => maxTf[key] / (maxTf[key] + c1 + c2 * minLength[key])
    used.sort((a, b) => impact(b) - impact(a) || a - b)

    const n = used.length
    const starts = new Int32Array(n)
    const ends = new Int32Array(n)
    const whole = new Uint8Array(n)
    const groupMaxTf = new Uint16Array(n)
    const groupMinLength = new Uint32Array(n)
    // Where the next posting of a key goes, and where its stored room ends.
    const at = new Int32Array(keys)
    const end = new Int32Array(keys)
    const total = Math.min(stored, length)
    let filled = 0
    for (let g = 0; g < n; g++) {
      const key = used[g]
      const room = Math.min(counts[key], total - filled)
      starts[g] = filled
      ends[g] = filled + room
      whole[g] = room === counts[key] ? 1 : 0
      groupMaxTf[g] = maxTf[key]
      groupMinLength[g] = minLength[key]
      at[key] = filled
      end[key] = filled + room
      filled += room
    }
    const impactDocs = new Int32Array(total)
    for (let p = 0; p < length && total > 0; p++) {
      const key = keyOf(tfs[p], docLength[docs[p]])
      const q = at[key]
      if (q === end[key]) continue
      impactDocs[q] = docs[p]
      at[key] = q + 1
    }
    return new ImpactOrder(impactDocs, length, starts, ends, whole, groupMaxTf, groupMinLength)
  }

  /**
   * Appends the list's segments for one query word to out: the stored groups scoring above every posting not
   * stored, then (when some are not stored) the whole list in slot order with the bound of those, and the
   * postings appended since the copy with the list's bound (`whole`). A term's BM25 is
   * tier + factor * tf / (tf + c1 + c2 * length).
   */
  segments(list: Postings, tier: number, factor: number, c1: number, c2: number, whole: number, out: Segment[]): void {
    if (list.length > this.built)
      out.push({
        docs: list.docs,
        tfs: list.tfs,
        tf: 0,
        from: this.built,
        to: list.length,
        tier,
        factor,
        bound: whole,
        cut: null,
      })
    const { starts, ends, maxTf, minLength } = this
    const bounds = new Float64Array(starts.length)
    let rest = Number.NEGATIVE_INFINITY
    for (let g = 0; g < starts.length; g++) {
      bounds[g] = tier + (factor * maxTf[g]) / (maxTf[g] + c1 + c2 * minLength[g])
      if (this.whole[g] === 0 && bounds[g] > rest) rest = bounds[g]
    }
    for (let g = 0; g < starts.length; g++) {
      // A group bounded by the rest is read with it (the rest is the whole list).
      if (this.whole[g] === 1 && bounds[g] > rest)
        out.push({
          docs: this.docs,
          tfs: null,
          tf: maxTf[g],
          from: starts[g],
          to: ends[g],
          tier,
          factor,
          bound: bounds[g],
          cut: null,
        })
    }
    if (rest > Number.NEGATIVE_INFINITY)
      out.push({ docs: list.docs, tfs: list.tfs, tf: 0, from: 0, to: list.length, tier, factor, bound: rest, cut: this })
  }
}

function keyOf(tf: number, length: number): number {
  return Math.min(tf, TF_KEYS - 1) * LENGTH_KEYS + Math.min(length, LENGTH_KEYS - 1)
}

/** From which list length the threshold top-k reads a list by impact, and how many postings its copy keeps at least. */
export interface ImpactPolicy {
  from: number
  stored: number
}

/**
 * Share of a large list's postings its impact copy keeps beyond policy.stored at first, and at most: a copy read
 * past its end is rebuilt four times deeper, up to the largest share (bounds the copies' memory).
 */
const STORED_SHARE = 1 / 16
const LARGEST_SHARE = 1 / 4

/**
 * Appends the segments the threshold top-k reads of a list for one query word: a large list's impact groups
 * (its copy built on first use), another list whole.
 */
export function listSegments(
  list: Postings,
  tier: number,
  factor: number,
  bm25: { c1: number; c2: number; docLength: Uint32Array },
  /** Shortest document of the index (a lower bound), for the bound of a list read whole. */
  minDocLength: number,
  policy: ImpactPolicy,
  out: Segment[],
): void {
  const { c1, c2, docLength } = bm25
  const bound = tier + (factor * list.maxTf) / (list.maxTf + c1 + c2 * minDocLength)
  if (list.length < policy.from) {
    out.push({ docs: list.docs, tfs: list.tfs, tf: 0, from: 0, to: list.length, tier, factor, bound, cut: null })
    return
  }
  let impacts = list.impacts
  const largest = Math.max(policy.stored, Math.ceil(list.length * LARGEST_SHARE))
  // Rebuilt four times deeper when a query read past it, or as deep once the appended postings outgrow policy.stored.
  const deeper = impacts?.cutShort === true && impacts.docs.length < largest
  if (impacts === null || deeper || list.length - impacts.built > policy.stored) {
    const stored = Math.max(Math.ceil(list.length * STORED_SHARE), impacts === null ? 0 : impacts.docs.length * (deeper ? 4 : 1))
    impacts = ImpactOrder.build(list, docLength, c1, c2, Math.min(largest, Math.max(policy.stored, stored)))
    list.impacts = impacts
  }
  impacts.segments(list, tier, factor, c1, c2, bound, out)
}

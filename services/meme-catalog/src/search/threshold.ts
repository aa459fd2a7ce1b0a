import { type ImpactPolicy, listSegments, type Segment } from './impacts.ts'
import type { Bm25, Operand, Scratch } from './intersect.ts'
import type { Postings } from './postings.ts'
import { siftDown, siftUp } from './rank.ts'

/** Relative slack on pruning comparisons: bounds and scores are sums taken in different orders. */
const SLACK = 1e-9
/** Postings beyond those read so far that an operand may take to be read to its end. */
const FINISH_SLACK = 4096

interface ListBound {
  list: Postings
  tier: number
  factor: number
  /** No posting of the list scores above this (largest tf, shortest document). */
  bound: number
}

/**
 * The best k matches of a query, best first, without scoring every match: a threshold algorithm over the
 * operands' lists, read in segments whose postings score at most the segment's bound (a large list's impact
 * groups, a small list whole; see listSegments), each operand's from the highest bound. A slot met for the first
 * time in a segment can score at most its score there (or the bound of its operand's next segment) plus the next
 * bounds of the other operands (it is in none of their segments read so far). Only slots whose bound reaches the
 * k-th best score so far get their exact score; reading stops once the sum of the next bounds is below it.
 * `matches` is the exact match bitset (see matchBits).
 */
export function topKByThreshold(
  operands: Operand[],
  matches: Int32Array,
  scratch: Scratch,
  bm25: Bm25,
  columns: { createdAt: Float64Array; ids: (string | undefined)[] },
  k: number,
  minDocLength: number,
  impacts: ImpactPolicy,
): number[] {
  const { c1, c2, docLength } = bm25
  // Exact scores by slot, in the buffer the full scoring keeps per-slot bests in.
  const { mark, best: scores } = scratch
  const { createdAt, ids } = columns
  const bounds: ListBound[][] = operands.map((operand) =>
    operand.lists
      .map((list, e) => {
        const factor = bm25.factor(list, operand.scored)
        const tier = operand.tiers[e]
        return { list, tier, factor, bound: tier + (factor * list.maxTf) / (list.maxTf + c1 + c2 * minDocLength) }
      })
      .sort((a, b) => b.bound - a.bound),
  )
  // What each operand reads, best bound first: large lists by impact groups, others whole (see listSegments).
  const segments: Segment[][] = operands.map((operand) => {
    const out: Segment[] = []
    for (let e = 0; e < operand.lists.length; e++) {
      const list = operand.lists[e]
      listSegments(list, operand.tiers[e], bm25.factor(list, operand.scored), bm25, minDocLength, impacts, out)
    }
    return out.sort((a, b) => b.bound - a.bound)
  })
  const next = new Int32Array(operands.length)
  const nextBound = (o: number) => (next[o] < segments[o].length ? segments[o][next[o]].bound : Number.NEGATIVE_INFINITY)
  // Postings left to read per operand, and read in all: an operand cheap to finish is read whole (once every
  // match is met, the top-k is known), else the segment that lowers its operand's bound most per posting.
  const left = Float64Array.from(segments, (list) => list.reduce((sum, segment) => sum + segment.to - segment.from, 0))
  let readSoFar = 0
  const gain = (o: number) => {
    const segment = segments[o][next[o]]
    const after = next[o] + 1 < segments[o].length ? segments[o][next[o] + 1].bound : 0
    return (segment.bound - after) / (segment.to - segment.from + 1)
  }
  const choose = (): number => {
    let cheapest = -1
    let best = -1
    for (let o = 0; o < segments.length; o++) {
      if (next[o] >= segments[o].length) continue
      if (cheapest < 0 || left[o] < left[cheapest]) cheapest = o
      if (best < 0 || gain(o) > gain(best)) best = o
    }
    return cheapest >= 0 && left[cheapest] <= readSoFar + FINISH_SLACK ? cheapest : best
  }

  // True when slot a ranks before slot b (scores[slot] holds exact scores of the slots met).
  const before = (a: number, b: number): boolean => {
    if (scores[a] !== scores[b]) return scores[a] > scores[b]
    if (createdAt[a] !== createdAt[b]) return createdAt[a] > createdAt[b]
    return (ids[a] as string) > (ids[b] as string)
  }
  const heap = new Int32Array(k)
  let size = 0
  const epoch = scratch.nextEpoch()

  // Upper bounds of each operand's score for the slots of the list being read.
  const limits = new Float64Array(operands.length)
  let limitSum = 0
  // The lists operand by operand (each operand's from the highest bound), flat for the scoring loop.
  const flat = bounds.flat()
  const first = new Int32Array(bounds.length + 1)
  for (let o = 0; o < bounds.length; o++) first[o + 1] = first[o] + bounds[o].length
  const flatTier = Float64Array.from(flat, (b) => b.tier)
  const flatFactor = Float64Array.from(flat, (b) => b.factor)
  const flatBound = Float64Array.from(flat, (b) => b.bound)
  const flatList = flat.map((b) => b.list)
  /** The exact score of d, or -Infinity as soon as the operands scored so far plus the limits of the rest fall below floor. */
  const exactScore = (d: number, floor: number): number => {
    const norm = c2 * docLength[d]
    let total = 0
    let rest = limitSum
    for (let o = 0; o < first.length - 1; o++) {
      let best = -1
      for (let e = first[o]; e < first[o + 1]; e++) {
        if (flatBound[e] <= best) break
        const list = flatList[e]
        const at = list.indexOf(d)
        if (at < 0) continue
        const tf = list.tfs[at]
        const s = flatTier[e] + (flatFactor[e] * tf) / (tf + c1 + norm)
        if (s > best) best = s
      }
      total = o === 0 ? best : total + best
      rest -= limits[o]
      if (total + rest < floor) return Number.NEGATIVE_INFINITY
    }
    return total
  }

  for (;;) {
    const pick = choose()
    if (pick < 0) break
    let sum = 0
    for (let o = 0; o < segments.length; o++) sum += nextBound(o)
    const threshold = size === k ? scores[heap[0]] : Number.NEGATIVE_INFINITY
    if (size === k && sum < threshold - SLACK * Math.abs(threshold)) break

    const { docs, tfs, tf, from, to: length, tier, factor, bound, cut } = segments[pick][next[pick]++]
    if (cut !== null) cut.cutShort = true
    left[pick] -= length - from
    readSoFar += length - from
    let others = 0
    for (let o = 0; o < segments.length; o++) if (o !== pick) others += nextBound(o)
    const after = nextBound(pick)
    // A slot first met here is in no segment read so far: its other operands score at most their next bounds.
    limitSum = 0
    for (let o = 0; o < segments.length; o++) {
      limits[o] = o === pick ? Math.max(bound, after) : nextBound(o)
      limitSum += limits[o]
    }
    const { cand } = scratch
    // Collect a batch of slots passing the bound (a tight loop), then score them and raise the floor.
    for (let p = from; p < length; ) {
      const floor = size === k ? scores[heap[0]] - SLACK * Math.abs(scores[heap[0]]) : Number.NEGATIVE_INFINITY
      const found = collect(
        docs,
        tfs,
        tf,
        p,
        length,
        matches,
        mark,
        epoch,
        docLength,
        tier,
        factor,
        c1,
        c2,
        after,
        others,
        floor,
        cand,
      )
      p = collectedUpTo
      for (let i = 0; i < found; i++) {
        const d = cand[i]
        if (mark[d] === epoch) continue
        mark[d] = epoch
        scores[d] = exactScore(d, size === k ? scores[heap[0]] - SLACK * Math.abs(scores[heap[0]]) : Number.NEGATIVE_INFINITY)
        if (scores[d] === Number.NEGATIVE_INFINITY) continue
        if (size < k) {
          heap[size] = d
          siftUp(heap, size++, before)
        } else if (before(d, heap[0])) {
          heap[0] = d
          siftDown(heap, k, before)
        }
      }
    }
  }
  const ranked = Array.from(heap.subarray(0, size))
  return ranked.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
}

const BATCH = 64
let collectedUpTo = 0

/**
 * Slots of docs[from..] in matches, not marked, whose bound reaches floor, into out (at most BATCH); sets
 * collectedUpTo to where the scan stopped; tfs is null in an impact group, whose tf is at most groupTf. Kept
 * apart: this loop is the cost of large queries.
 */
function collect(
  docs: Int32Array,
  tfs: Uint16Array | null,
  groupTf: number,
  from: number,
  length: number,
  matches: Int32Array,
  mark: Int32Array,
  epoch: number,
  docLength: Uint32Array,
  tier: number,
  factor: number,
  c1: number,
  c2: number,
  after: number,
  others: number,
  floor: number,
  out: Int32Array,
): number {
  let found = 0
  let p = from
  // A slot passes when max(s, after) + others >= floor; with after alone enough, every match passes.
  const everyMatch = after + others >= floor
  const need = floor - others - tier
  for (; p < length && found < BATCH; p++) {
    const d = docs[p]
    if ((matches[d >> 5] & (1 << (d & 31))) === 0 || mark[d] === epoch) continue
    if (!everyMatch) {
      const tf = tfs === null ? groupTf : tfs[p]
      // factor * tf / (tf + c1 + c2 * length) < need, without the division.
      if (factor * tf < need * (tf + c1 + c2 * docLength[d])) continue
    }
    out[found++] = d
  }
  collectedUpTo = p
  return found
}

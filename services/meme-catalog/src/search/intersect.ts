import { gallopTo, type Postings } from './postings.ts'

/** BM25 parameters (the usual defaults). */
const K1 = 1.2
const B = 0.75

/**
 * Score floors by how a query word matched a term. A word's contribution is its floor plus the term's BM25,
 * and BM25 stays under 45 for any index below 10^9 documents, so exact always beats prefix beats a typo.
 */
export const MATCH_TIERS = { exact: 300, prefix: 200, typo1: 100, typo2: 0 } as const

/** One AND operand: a query word (its term expansions, unioned) or a tag filter (one list, no score). */
export interface Operand {
  lists: readonly Postings[]
  tiers: readonly number[]
  scored: boolean
  /** Upper bound of the operand's matches (sum of list lengths): the intersection starts from the smallest. */
  estimate: number
}

/** Buffers sized to the slot capacity, reused by every query (search is synchronous). */
export interface Scratch {
  mark: Int32Array
  best: Float64Array
  cand: Int32Array
  scores: Float64Array
  wordScores: Float64Array
  /** Bitsets of capacity / 32 words: the matches of a query and one operand's union. */
  matches: Int32Array
  union: Int32Array
  nextEpoch(): number
}

export interface CollectionStats {
  documents: number
  totalLength: number
  docLength: Uint32Array
}

/** BM25 of one posting is factor * tf / (tf + c1 + c2 * docLength). */
export interface Bm25 {
  c1: number
  c2: number
  docLength: Uint32Array
  factor(list: Postings, scored: boolean): number
}

/**
 * Resolves the AND of the operands, sorted rarest first, into scratch.cand/scores and returns how many
 * matched. Each later operand checks the candidates against each of its lists the cheapest way: through the
 * bitset and rank directory of a dense list (constant time per candidate), by galloping through a list longer
 * than the candidates, or by one scan of a list against marked candidates; only survivors are scored.
 */
export function intersect(operands: Operand[], scratch: Scratch, stats: CollectionStats): number {
  const bm25 = createBm25(stats)
  let count = seed(operands[0], scratch, bm25)
  let sorted = operands[0].lists.length === 1
  for (let o = 1; o < operands.length && count > 0; o++) {
    const operand = operands[o]
    const ways = operand.lists.map((list) => wayOf(list, count, scratch.matches.length))
    if (!sorted && ways.includes(GALLOP)) {
      sortCandidates(count, scratch)
      sorted = true
    }
    count = filter(count, operand, ways, scratch, bm25)
  }
  return count
}

const BITS = 0
const GALLOP = 1
const SCAN = 2

/** How a list is best checked against count candidates; a list holding one slot in 32 keeps a bitset. */
function wayOf(list: Postings, count: number, words: number): number {
  if (list.bits !== null) return BITS
  if (list.length >= words) {
    list.attachBits(words)
    return BITS
  }
  return count * (2 + Math.log2(1 + list.length / count)) < list.length ? GALLOP : SCAN
}

export function createBm25(stats: CollectionStats): Bm25 {
  const n = stats.documents
  const avgLength = stats.totalLength / Math.max(1, n)
  return {
    c1: K1 * (1 - B),
    c2: (K1 * B) / Math.max(avgLength, 1e-9),
    docLength: stats.docLength,
    factor: (list, scored) => (scored ? Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5)) * (K1 + 1) : 0),
  }
}

/** The first operand's lists unioned into the candidates, each slot keeping its best-scoring term. */
function seed(operand: Operand, scratch: Scratch, bm25: Bm25): number {
  const { cand, scores, mark, best } = scratch
  const { c1, c2, docLength } = bm25
  if (operand.lists.length === 1) {
    // One list: its slots are distinct and ascending, no marks needed.
    const list = operand.lists[0]
    const { docs, tfs, length } = list
    const factor = bm25.factor(list, operand.scored)
    const tier = operand.tiers[0]
    for (let k = 0; k < length; k++) {
      const d = docs[k]
      const tf = tfs[k]
      cand[k] = d
      scores[k] = tier + (factor * tf) / (tf + c1 + c2 * docLength[d])
    }
    return length
  }
  const epoch = scratch.nextEpoch()
  let count = 0
  for (let e = 0; e < operand.lists.length; e++) {
    const list = operand.lists[e]
    const { docs, tfs, length } = list
    const factor = bm25.factor(list, operand.scored)
    const tier = operand.tiers[e]
    for (let k = 0; k < length; k++) {
      const d = docs[k]
      const tf = tfs[k]
      const s = tier + (factor * tf) / (tf + c1 + c2 * docLength[d])
      if (mark[d] !== epoch) {
        mark[d] = epoch
        best[d] = s
        cand[count++] = d
      } else if (s > best[d]) best[d] = s
    }
  }
  for (let i = 0; i < count; i++) scores[i] = best[cand[i]]
  return count
}

/** Keeps the candidates found in any list of the operand, adding their best score there. */
function filter(count: number, operand: Operand, ways: number[], scratch: Scratch, bm25: Bm25): number {
  const { cand, scores, wordScores, mark, best } = scratch
  const { c1, c2, docLength } = bm25
  wordScores.fill(-1, 0, count)
  let epoch = -1
  for (let e = 0; e < operand.lists.length; e++) {
    const list = operand.lists[e]
    const { docs, tfs, length } = list
    const factor = bm25.factor(list, operand.scored)
    const tier = operand.tiers[e]
    if (ways[e] === BITS) {
      for (let i = 0; i < count; i++) {
        const d = cand[i]
        const at = list.indexOf(d)
        if (at < 0) continue
        const tf = tfs[at]
        const s = tier + (factor * tf) / (tf + c1 + c2 * docLength[d])
        if (s > wordScores[i]) wordScores[i] = s
      }
    } else if (ways[e] === GALLOP) {
      // Candidates are ascending here: one cursor through the list.
      let pos = 0
      for (let i = 0; i < count && pos < length; i++) {
        const d = cand[i]
        if (docs[pos] < d) pos = gallopTo(docs, pos, length, d)
        if (pos < length && docs[pos] === d) {
          const tf = tfs[pos]
          const s = tier + (factor * tf) / (tf + c1 + c2 * docLength[d])
          if (s > wordScores[i]) wordScores[i] = s
        }
      }
    } else {
      if (epoch < 0) {
        // Marked candidates remember their index (in best, free until the end of this filter).
        epoch = scratch.nextEpoch()
        for (let i = 0; i < count; i++) {
          mark[cand[i]] = epoch
          best[cand[i]] = i
        }
      }
      for (let k = 0; k < length; k++) {
        const d = docs[k]
        if (mark[d] !== epoch) continue
        const i = best[d]
        const tf = tfs[k]
        const s = tier + (factor * tf) / (tf + c1 + c2 * docLength[d])
        if (s > wordScores[i]) wordScores[i] = s
      }
    }
  }
  let kept = 0
  for (let i = 0; i < count; i++) {
    if (wordScores[i] >= 0) {
      cand[kept] = cand[i]
      scores[kept++] = scores[i] + wordScores[i]
    }
  }
  return kept
}

/** Sorts the candidates ascending (for galloping), keeping each score with its slot. */
function sortCandidates(count: number, scratch: Scratch): void {
  const { cand, scores, best } = scratch
  for (let i = 0; i < count; i++) best[cand[i]] = scores[i]
  cand.subarray(0, count).sort()
  for (let i = 0; i < count; i++) scores[i] = best[cand[i]]
}

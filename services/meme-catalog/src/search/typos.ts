import { grown } from './grown.ts'
import { maxTypos } from './normalize.ts'

/** Largest edit distance the index answers (maxTypos never asks for more). */
export const TYPO_DISTANCE = 2
/**
 * Entries kept at most (12 bytes each, and 4-8 bytes of buckets: 20 MB at most): past that add fails and the
 * owner walks its term tree instead. The bench's 5,181 terms take 111,769 (2.1 MB).
 */
export const MAX_TYPO_ENTRIES = 1 << 20
const EMPTY = -1

/**
 * Terms within a small edit distance of a word, by deletion neighbourhoods (as SymSpell): a term is recorded under
 * the hash of every string its deletions of up to d letters leave, d the largest distance a query word may be from
 * it (maxTypos of the word's length, 0-2). Two strings within distance k share such a string with at most k
 * deletions on each side, so a word's own deletions find every candidate, and each candidate's distance is then
 * computed: the answer is exactly the terms a walk of the whole vocabulary would find. A few dozen hash lookups
 * instead of a walk of the term tree (0.02-0.1 ms a 5+ letter word at a 5,000-word vocabulary).
 * Entries are kept by term id on typed arrays and unlinked when a term goes, so memory follows the vocabulary.
 */
export class TypoIndex {
  /** First entry of each bucket (by hash), or EMPTY. */
  private heads = new Int32Array(1 << 12).fill(EMPTY)
  // Entries: term id, the deletion string's full hash, next entry in the bucket; free entries chained by next.
  private ids = new Int32Array(1 << 12)
  private hashes = new Int32Array(1 << 12)
  private next = new Int32Array(1 << 12)
  private used = 0
  private free = EMPTY
  private live = 0
  // Per query: candidates already checked (by term id, against the query's epoch), and the distance rows.
  private seen = new Int32Array(0)
  private epoch = 0
  private row = new Int32Array(64)
  private previous = new Int32Array(64)

  constructor(private readonly maxEntries = MAX_TYPO_ENTRIES) {}

  /** Entries in use (for the memory figure: about 16 bytes each). */
  get size(): number {
    return this.live
  }

  /** Records a term under its deletions; false when the index would outgrow maxEntries (nothing is recorded). */
  add(term: string, id: number): boolean {
    const depth = depthOf(term.length)
    if (depth === 0) return true
    if (this.live + variantCount(term.length, depth) > this.maxEntries) return false
    forEachDeletion(term, depth, (hash) => this.insert(hash, id))
    return true
  }

  /** Forgets a term added under this id. */
  delete(term: string, id: number): void {
    const depth = depthOf(term.length)
    if (depth > 0) forEachDeletion(term, depth, (hash) => this.unlink(hash, id))
  }

  /**
   * Calls found(id, distance) once for each term within 1..maxDistance of word (maxDistance <= TYPO_DISTANCE);
   * termOf gives a candidate's text.
   */
  match(word: string, maxDistance: number, termOf: (id: number) => string, found: (id: number, distance: number) => void): void {
    if (maxDistance <= 0) return
    if (this.epoch >= 0x7ffffff0) {
      this.seen.fill(0)
      this.epoch = 0
    }
    const epoch = ++this.epoch
    const mask = this.heads.length - 1
    forEachDeletion(word, Math.min(maxDistance, word.length), (hash) => {
      for (let e = this.heads[hash & mask]; e !== EMPTY; e = this.next[e]) {
        if (this.hashes[e] !== hash) continue
        const id = this.ids[e]
        if (id >= this.seen.length) this.growSeen(id)
        if (this.seen[id] === epoch) continue
        this.seen[id] = epoch
        const term = termOf(id)
        if (Math.abs(term.length - word.length) > maxDistance) continue
        const distance = this.distance(word, term, maxDistance)
        if (distance > 0 && distance <= maxDistance) found(id, distance)
      }
    })
  }

  private insert(hash: number, id: number): void {
    let e = this.free
    if (e !== EMPTY) this.free = this.next[e]
    else {
      if (this.used === this.ids.length) this.growEntries()
      e = this.used++
    }
    // At least as many buckets as entries (twice as many at most): chains stay short.
    if (++this.live > this.heads.length) this.rehash(this.heads.length * 2)
    const bucket = hash & (this.heads.length - 1)
    this.ids[e] = id
    this.hashes[e] = hash
    this.next[e] = this.heads[bucket]
    this.heads[bucket] = e
  }

  private unlink(hash: number, id: number): void {
    const bucket = hash & (this.heads.length - 1)
    let before = EMPTY
    for (let e = this.heads[bucket]; e !== EMPTY; ) {
      const after = this.next[e]
      if (this.ids[e] === id && this.hashes[e] === hash) {
        if (before === EMPTY) this.heads[bucket] = after
        else this.next[before] = after
        this.next[e] = this.free
        this.free = e
        this.live--
      } else before = e
      e = after
    }
  }

  private rehash(size: number): void {
    const heads = new Int32Array(size).fill(EMPTY)
    const mask = size - 1
    for (let b = 0; b < this.heads.length; b++) {
      for (let e = this.heads[b]; e !== EMPTY; ) {
        const after = this.next[e]
        const bucket = this.hashes[e] & mask
        this.next[e] = heads[bucket]
        heads[bucket] = e
        e = after
      }
    }
    this.heads = heads
  }

  private growEntries(): void {
    const size = this.ids.length * 2
    for (const name of ['ids', 'hashes', 'next'] as const) this[name] = grown(this[name], new Int32Array(size))
  }

  private growSeen(id: number): void {
    this.seen = grown(this.seen, new Int32Array(Math.max(1024, (id + 1) * 2)))
  }

  /** Levenshtein distance of a and b, or more than max as soon as every cell of a row is past max. */
  private distance(a: string, b: string, max: number): number {
    if (b.length + 1 > this.row.length) {
      this.row = new Int32Array((b.length + 1) * 2)
      this.previous = new Int32Array((b.length + 1) * 2)
    }
    let previous = this.previous
    let row = this.row
    for (let j = 0; j <= b.length; j++) previous[j] = j
    for (let i = 1; i <= a.length; i++) {
      row[0] = i
      let least = i
      const c = a.charCodeAt(i - 1)
      for (let j = 1; j <= b.length; j++) {
        const cost = previous[j - 1] + (c === b.charCodeAt(j - 1) ? 0 : 1)
        const cell = Math.min(cost, previous[j] + 1, row[j - 1] + 1)
        row[j] = cell
        if (cell < least) least = cell
      }
      if (least > max) return max + 1
      const swap = previous
      previous = row
      row = swap
    }
    return previous[b.length]
  }
}

/** The most deletions recorded for a term of this length: the largest distance a query word may be from it. */
export function depthOf(length: number): number {
  let depth = 0
  for (let word = Math.max(1, length - TYPO_DISTANCE); word <= length + TYPO_DISTANCE; word++) {
    const allowed = Math.min(maxTypos(word), TYPO_DISTANCE)
    if (Math.abs(word - length) <= allowed && allowed > depth) depth = allowed
  }
  return depth
}

/** How many deletion strings forEachDeletion visits for a word of this length (repeats included). */
function variantCount(length: number, depth: number): number {
  return 1 + (depth >= 1 ? length : 0) + (depth >= 2 ? (length * (length - 1)) / 2 : 0)
}

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/**
 * Calls visit with the FNV-1a hash of every string left by deleting up to depth (0-2) of word's characters: the
 * word itself, each one-letter deletion, each two-letter deletion (a string reached twice is visited twice).
 */
function forEachDeletion(word: string, depth: number, visit: (hash: number) => void): void {
  const n = word.length
  let h = FNV_OFFSET
  for (let k = 0; k < n; k++) h = Math.imul(h ^ word.charCodeAt(k), FNV_PRIME)
  visit(h)
  if (depth < 1) return
  // The hash of the characters before the first deletion is shared by every deletion after it.
  let before = FNV_OFFSET
  for (let i = 0; i < n; i++) {
    let one = before
    for (let k = i + 1; k < n; k++) one = Math.imul(one ^ word.charCodeAt(k), FNV_PRIME)
    visit(one)
    if (depth >= 2) {
      let between = before
      for (let j = i + 1; j < n; j++) {
        let two = between
        for (let k = j + 1; k < n; k++) two = Math.imul(two ^ word.charCodeAt(k), FNV_PRIME)
        visit(two)
        between = Math.imul(between ^ word.charCodeAt(j), FNV_PRIME)
      }
    }
    before = Math.imul(before ^ word.charCodeAt(i), FNV_PRIME)
  }
}

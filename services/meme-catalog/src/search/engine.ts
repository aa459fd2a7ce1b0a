import { PostingsBatch } from './batch.ts'
import { matchBits } from './bitset.ts'
import { SUGGEST_SCAN } from './complete.ts'
import { DocumentTerms } from './document-terms.ts'
import { ForwardIndex } from './forward.ts'
import type { ImpactPolicy } from './impacts.ts'
import { type CollectionStats, createBm25, intersect, type Operand } from './intersect.ts'
import { parseQuery } from './normalize.ts'
import { type Columns, ListingOrder, NEWEST_FIRST, TRENDING_FIRST } from './order.ts'
import type { Postings } from './postings.ts'
import { rankTopK } from './rank.ts'
import { createScratch } from './scratch.ts'
import { SlotTable } from './slots.ts'
import { scanText } from './terms.ts'
import { topKByThreshold } from './threshold.ts'
import {
  type Completion,
  EmptyQueryError,
  type MemeSearchIndex,
  type SearchDocument,
  type SearchIndexOptions,
  type SearchQuery,
  type SearchResult,
  type Suggestion,
} from './types.ts'
import { MAX_TYPO_ENTRIES } from './typos.ts'
import { Vocabulary } from './vocabulary.ts'

/** Documents of a known-size batch whose terms estimate the room the rest will need. */
const SAMPLE_DOCUMENTS = 4096
const NO_FILTERS: readonly string[] = []

/** Below this many matches for its rarest operand, a query scores every match (cheaper than the bitsets). */
const DEFAULT_THRESHOLD_FROM = 20_000
/** From this many postings a list is read by impact in the threshold top-k, through a copy of this many at least. */
const DEFAULT_IMPACT_FROM = 16_384
const DEFAULT_IMPACT_KEPT = 4096

/**
 * In-memory search over approved memes. Postings are sorted slot arrays; a query resolves the AND from the
 * rarest operand before scoring, scores only the intersection, and selects the top k instead of sorting.
 * Memory is mostly typed arrays: per-slot columns, postings and a forward index of term ids per slot.
 */
class SearchIndex<D extends SearchDocument> implements MemeSearchIndex<D> {
  private readonly vocabulary: Vocabulary
  private readonly slotOf = new SlotTable((slot) => this.columns.ids[slot])
  private freeSlots: number[] = []
  private slotCount = 0
  private capacity = 0
  private totalLength = 0
  private readonly columns: Columns = { ids: [], createdAt: new Float64Array(0), trending: new Float64Array(0) }
  /** The documents by slot: callers look records up here instead of in a map of their own. */
  private docs: (D | undefined)[] = []
  private docLength = new Uint32Array(0)
  private forward = new ForwardIndex()
  private order = new ListingOrder(this.columns, NEWEST_FIRST)
  private trendingOrder = new ListingOrder(this.columns, TRENDING_FIRST)
  /** Shortest document ever indexed (a lower bound: removals do not raise it), for score bounds. */
  private minDocLength = Number.POSITIVE_INFINITY
  private readonly thresholdFrom: number
  private readonly impacts: ImpactPolicy
  private readonly filtersOf: SearchIndexOptions<D>['filtersOf']
  /** The term ids of the document being added. */
  private readonly terms: DocumentTerms
  private batch: PostingsBatch | null = null
  // Reused by every query: search is synchronous, so two queries never share it at once.
  private scratch = createScratch(0, 0)

  constructor(options: SearchIndexOptions<D> = {}) {
    this.thresholdFrom = options.thresholdFrom ?? DEFAULT_THRESHOLD_FROM
    this.impacts = { from: options.impactFrom ?? DEFAULT_IMPACT_FROM, stored: options.impactKept ?? DEFAULT_IMPACT_KEPT }
    this.filtersOf = options.filtersOf
    this.vocabulary = new Vocabulary(options.typoEntries ?? MAX_TYPO_ENTRIES)
    this.terms = new DocumentTerms(this.vocabulary)
  }

  get size(): number {
    return this.slotOf.size
  }

  has(id: string): boolean {
    return this.slotOf.get(id) >= 0
  }

  get(id: string): D | undefined {
    const slot = this.slotOf.get(id)
    return slot >= 0 ? this.docs[slot] : undefined
  }

  upsert(doc: D): void {
    const previous = this.slotOf.get(doc.id)
    if (previous >= 0) this.removeSlot(previous)
    this.add(doc, this.freeSlots.length > 0 ? (this.freeSlots.pop() as number) : this.slotCount++)
  }

  /**
   * Adds many documents (a load): the same index as upsert one by one, built faster (see PostingsBatch). New
   * documents take fresh slots; ids already indexed, or repeated in docs, are upserted after the batch.
   */
  upsertMany(docs: Iterable<D>): void {
    const later: D[] = []
    this.batch ??= new PostingsBatch()
    this.terms.batching = true
    // An array says how many documents come: size the columns once, and the batch and forward index from the
    // first documents' terms (every growth of these large buffers is garbage that brings a major GC).
    const count = Array.isArray(docs) ? docs.length : 0
    // At least doubling: a load in batches must not copy the columns once per batch.
    if (this.slotCount + count > this.capacity) this.grow(Math.max(this.slotCount + count, this.capacity * 2))
    this.slotOf.reserve(this.slotOf.size + count)
    let seen = 0
    const forwardBefore = this.forward.used
    try {
      for (const doc of docs) {
        const hash = SlotTable.hash(doc.id)
        if (this.slotOf.get(doc.id, hash) >= 0) later.push(doc)
        else this.add(doc, this.slotCount++, hash)
        if (++seen === SAMPLE_DOCUMENTS && count > 2 * seen) {
          const scale = (1.05 * (count - seen)) / seen
          this.batch.reserve(Math.ceil(this.batch.recorded * scale))
          this.forward.reserve(Math.ceil((this.forward.used - forwardBefore) * scale))
        }
      }
    } finally {
      this.terms.batching = false
      this.batch.flush(this.vocabulary.byId, this.forward)
    }
    for (const doc of later) this.upsert(doc)
  }

  private add(doc: D, slot: number, idHash = SlotTable.hash(doc.id)): void {
    if (slot >= this.capacity) this.grow(Math.max(1024, this.capacity * 2))
    const terms = this.terms
    terms.start(slot)
    // Caption and tags are indexed as one text, piece by piece (a space between them ends every word).
    const fold = this.vocabulary.fold
    for (let p = -1; p < doc.tags.length; p++) scanText(p < 0 ? doc.caption : (doc.tags[p] as string), terms, fold)
    const length = terms.length
    const tags = doc.tags
    const filters = this.filtersOf?.(doc) ?? NO_FILTERS
    // Tags, then filter keys, without an array joining them: a load adds a million documents.
    for (let t = 0; t < tags.length + filters.length; t++) {
      const tag = (t < tags.length ? (tags[t] as string) : (filters[t - tags.length] as string)).toLowerCase()
      const postings = this.vocabulary.tagPostings(tag)
      if (terms.batching || postings.add(slot)) terms.push(postings.id)
    }

    if (terms.batching) this.forward.setSorted(slot, terms.ids, (this.batch as PostingsBatch).add(slot, terms.ids, terms.count))
    else this.forward.set(slot, terms.ids, terms.count)
    this.columns.ids[slot] = doc.id
    this.docs[slot] = doc
    this.columns.createdAt[slot] = doc.createdAt
    this.columns.trending[slot] = doc.trending ?? Number.NEGATIVE_INFINITY
    this.docLength[slot] = length
    if (length < this.minDocLength) this.minDocLength = length
    this.totalLength += length
    this.slotOf.set(doc.id, slot, idHash)
    this.order.added(slot)
    this.trendingOrder.added(slot)
  }

  setTrending(id: string, score: number): void {
    const slot = this.slotOf.get(id)
    if (slot < 0 || this.columns.trending[slot] === score) return
    // Moved in the listing: merged with the other changes on the next read.
    this.trendingOrder.removed(slot)
    this.columns.trending[slot] = score
    this.trendingOrder.added(slot)
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id)
    if (slot >= 0) this.removeSlot(slot)
  }

  clear(): void {
    this.vocabulary.clear()
    this.slotOf.clear()
    this.freeSlots = []
    this.slotCount = 0
    this.totalLength = 0
    this.columns.ids = new Array(this.capacity)
    this.docs = new Array(this.capacity)
    this.forward.clear()
    this.order.clear()
    this.trendingOrder.clear()
    this.minDocLength = Number.POSITIVE_INFINITY
  }

  settle(): boolean {
    const newest = this.order.settle()
    return this.trendingOrder.settle() || newest
  }

  search(query: SearchQuery): SearchResult {
    const offset = Math.max(0, Math.floor(query.offset) || 0)
    const limit = Math.max(0, Math.floor(query.limit) || 0)
    const words = query.q === undefined ? [] : parseQuery(query.q)
    if (query.q !== undefined && words.length === 0) throw new EmptyQueryError()
    const tags = [...new Set((query.tags ?? []).map((tag) => this.resolveTag(tag.toLowerCase())))]
    if (query.order === 'trending') {
      if (words.length > 0) throw new Error('a trending listing takes no search words')
      return this.listTrending(tags, offset, limit)
    }
    if (words.length === 0 && tags.length === 0) {
      const slots = this.order.page(offset, limit)
      return { total: this.order.count(), ids: slots.map((slot) => this.columns.ids[slot] as string) }
    }

    const operands = this.tagOperands(tags)
    if (operands === null) return { total: 0, ids: [] }
    for (const word of words) {
      const operand = this.vocabulary.expand(word)
      if (operand.estimate === 0) return { total: 0, ids: [] }
      operands.push(operand)
    }
    operands.sort((a, b) => a.estimate - b.estimate)

    const stats: CollectionStats = { documents: this.slotOf.size, totalLength: this.totalLength, docLength: this.docLength }
    if (operands[0].estimate >= this.thresholdFrom) return this.searchLarge(operands, stats, offset, limit)
    const count = intersect(operands, this.scratch, stats)
    const { scores, cand } = this.scratch
    const ids = rankTopK({ scores, cand, ...this.columns }, count, offset, limit)
    return { total: count, ids }
  }

  /** Highest trending score first, then newest; tags narrow it through the bitset of their matches. */
  private listTrending(tags: string[], offset: number, limit: number): SearchResult {
    const ids = this.columns.ids
    if (tags.length === 0) {
      return { total: this.trendingOrder.count(), ids: this.trendingOrder.page(offset, limit).map((slot) => ids[slot] as string) }
    }
    const operands = this.tagOperands(tags)
    if (operands === null) return { total: 0, ids: [] }
    const { matches, union } = this.scratch
    const total = matchBits(operands, matches, union)
    if (offset >= total) return { total, ids: [] }
    return { total, ids: this.trendingOrder.pageIn(matches, offset, limit).map((slot) => ids[slot] as string) }
  }

  /** One unscored operand per tag filter; null if a tag is on no document (nothing matches). */
  private tagOperands(tags: string[]): Operand[] | null {
    const operands: Operand[] = []
    for (const tag of tags) {
      const postings = this.vocabulary.tag(tag)
      if (postings === undefined) return null
      operands.push({ lists: [postings], tiers: [0], scored: false, estimate: postings.length })
    }
    return operands
  }

  setAliases(aliases: ReadonlyMap<string, string>): void {
    this.vocabulary.setAliases(aliases)
  }

  resolveTag(name: string): string {
    return this.vocabulary.resolveTag(name)
  }

  suggest(text: string, limit: number, scan = SUGGEST_SCAN): Suggestion[] {
    return this.vocabulary.suggest(text, limit, scan)
  }

  complete(word: string, limit: number): Completion[] {
    return this.vocabulary.complete(word, limit)
  }

  /**
   * A query whose every operand is large: the exact total from the bitset of matches, the page from a threshold
   * algorithm (or the newest-first listing walked through the bitset when nothing is scored: tags alone).
   */
  private searchLarge(operands: Operand[], stats: CollectionStats, offset: number, limit: number): SearchResult {
    const { matches, union } = this.scratch
    const total = matchBits(operands, matches, union)
    const k = Math.min(total, offset + limit)
    if (offset >= k) return { total, ids: [] }
    const slots = operands.some((operand) => operand.scored)
      ? topKByThreshold(
          operands,
          matches,
          this.scratch,
          createBm25(stats),
          this.columns,
          k,
          this.minDocLength,
          this.impacts,
        ).slice(offset)
      : this.order.pageIn(matches, offset, limit)
    return { total, ids: slots.map((slot) => this.columns.ids[slot] as string) }
  }

  private removeSlot(slot: number): void {
    const byId = this.vocabulary.byId
    for (const id of this.forward.get(slot)) {
      const postings = byId[id] as Postings
      postings.remove(slot)
      // Last document with this term or tag: the vocabulary forgets it.
      if (postings.length === 0) this.vocabulary.drop(postings)
    }
    this.forward.delete(slot)
    this.totalLength -= this.docLength[slot]
    this.slotOf.delete(this.columns.ids[slot] as string)
    this.columns.ids[slot] = undefined
    this.docs[slot] = undefined
    this.freeSlots.push(slot)
    this.order.removed(slot)
    this.trendingOrder.removed(slot)
  }

  private grow(capacity: number): void {
    const createdAt = new Float64Array(capacity)
    createdAt.set(this.columns.createdAt)
    this.columns.createdAt = createdAt
    const trending = new Float64Array(capacity)
    trending.set(this.columns.trending)
    this.columns.trending = trending
    const docLength = new Uint32Array(capacity)
    docLength.set(this.docLength)
    this.docLength = docLength
    // Sized once like the typed columns: grown by appends, each copy of these arrays was promoted, then garbage.
    this.columns.ids = extended(this.columns.ids, capacity)
    this.docs = extended(this.docs, capacity)
    this.forward.grow(capacity)
    this.order.grow(capacity)
    this.trendingOrder.grow(capacity)
    this.scratch = createScratch(capacity, this.thresholdFrom)
    this.capacity = capacity
  }
}

/** A copy of values with room for capacity entries (holes read as undefined: free slots). */
function extended<T>(values: T[], capacity: number): T[] {
  const copy: T[] = new Array(capacity)
  for (let i = 0; i < values.length; i++) copy[i] = values[i] as T
  return copy
}

export function createSearchIndex<D extends SearchDocument = SearchDocument>(
  options?: SearchIndexOptions<D>,
): MemeSearchIndex<D> {
  return new SearchIndex<D>(options)
}

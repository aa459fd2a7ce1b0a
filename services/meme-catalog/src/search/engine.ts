import SearchableMap from 'minisearch/SearchableMap'
import { TagAliases } from './aliases.ts'
import { PostingsBatch } from './batch.ts'
import { matchBits } from './bitset.ts'
import { type CompletionSource, complete } from './complete.ts'
import { type Expansion, ExpansionCache } from './expansions.ts'
import { ForwardIndex } from './forward.ts'
import { grown } from './grown.ts'
import type { ImpactPolicy } from './impacts.ts'
import { type CollectionStats, createBm25, intersect, MATCH_TIERS, type Operand, type Scratch } from './intersect.ts'
import { detach, foldText, parseQuery, type QueryWord, tokenize } from './normalize.ts'
import { type Columns, ListingOrder, NEWEST_FIRST, TRENDING_FIRST } from './order.ts'
import { Postings } from './postings.ts'
import { rankTopK } from './rank.ts'
import { SlotTable } from './slots.ts'
import { FoldedRuns, scanText, type TermSink, TermTable } from './terms.ts'
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
import { MAX_TYPO_ENTRIES, TYPO_DISTANCE, TypoIndex } from './typos.ts'

/** Documents of a known-size batch whose terms estimate the room the rest will need. */
const SAMPLE_DOCUMENTS = 4096
/** Vocabulary entries a suggestion looks at by default: bounds the work of a short prefix. */
const SUGGEST_SCAN = 5000

const NO_FILTERS: readonly string[] = []
/** Non-ASCII runs whose folded postings are remembered at most. */
const FOLDED_RUNS = 50_000

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
class SearchIndex<D extends SearchDocument> implements MemeSearchIndex<D>, TermSink {
  private terms = new Map<string, Postings>()
  private tree = new SearchableMap<Postings>()
  private tagLists = new Map<string, Postings>()
  /** Catalog tags by folded name, for completions (filter keys are left out). */
  private tagTree: CompletionSource['tags'] = new SearchableMap()
  /** Text terms by their characters (indexing ASCII text without a substring per word). */
  private table = new TermTable()
  /** Postings by term id (text terms and tags share the id space); holes are reusable ids. */
  private byId: (Postings | undefined)[] = []
  private freeIds: number[] = []
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
  /** Folded forms of accented words already seen (see tokenize). */
  private folded = new Map<string, string>()
  /** The postings of the non-ASCII runs already seen; cleared when a text term is dropped. */
  private runs = new FoldedRuns<Postings>(FOLDED_RUNS)
  private termIds = new Int32Array(256)
  /** Shortest document ever indexed (a lower bound: removals do not raise it), for score bounds. */
  private minDocLength = Number.POSITIVE_INFINITY
  private readonly thresholdFrom: number
  private readonly impacts: ImpactPolicy
  private readonly filtersOf: SearchIndexOptions<D>['filtersOf']
  private readonly typoEntries: number
  // The document being added: its slot, term ids so far (in termIds) and length.
  private adding = 0
  private addedIds = 0
  private addedLength = 0
  /** Set while upsertMany gathers a batch: terms go to the batch, lists grow when it is flushed. */
  private batching = false
  private batch: PostingsBatch | null = null
  private readonly fold = (text: string) => tokenize(text, this.folded)
  private aliases = new TagAliases()
  /** Recent query words' expansions; cleared whenever a term, tag or alias comes or goes. */
  private expansions = new ExpansionCache()
  /**
   * Text terms by deletion neighbourhood, for typo expansions: made on the first one (a load does not pay it) and
   * kept up to date with the terms; null before that, and for good (until clear) if the vocabulary outgrows it.
   */
  private typos: TypoIndex | null = null
  private typosTooLarge = false
  // Reused by every query: search is synchronous, so two queries never share it at once.
  private scratch = createScratch(0, 0)

  constructor(options: SearchIndexOptions<D> = {}) {
    this.thresholdFrom = options.thresholdFrom ?? DEFAULT_THRESHOLD_FROM
    this.impacts = { from: options.impactFrom ?? DEFAULT_IMPACT_FROM, stored: options.impactKept ?? DEFAULT_IMPACT_KEPT }
    this.filtersOf = options.filtersOf
    this.typoEntries = options.typoEntries ?? MAX_TYPO_ENTRIES
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
    this.batching = true
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
      this.batching = false
      this.batch.flush(this.byId, this.forward)
    }
    for (const doc of later) this.upsert(doc)
  }

  private add(doc: D, slot: number, idHash = SlotTable.hash(doc.id)): void {
    if (slot >= this.capacity) this.grow(Math.max(1024, this.capacity * 2))
    this.adding = slot
    this.addedIds = 0
    this.addedLength = 0
    // Caption and tags are indexed as one text, piece by piece (a space between them ends every word).
    for (let p = -1; p < doc.tags.length; p++) scanText(p < 0 ? doc.caption : (doc.tags[p] as string), this, this.fold)
    let n = this.addedIds
    const length = this.addedLength
    const tags = doc.tags
    const filters = this.filtersOf?.(doc) ?? NO_FILTERS
    // Tags, then filter keys, without an array joining them: a load adds a million documents.
    for (let t = 0; t < tags.length + filters.length; t++) {
      const tag = (t < tags.length ? (tags[t] as string) : (filters[t - tags.length] as string)).toLowerCase()
      let postings = this.tagLists.get(tag)
      if (postings === undefined) {
        postings = this.newPostings(tag)
        this.tagLists.set(tag, postings)
        this.expansions.clear()
        if (tag.charCodeAt(0) >= 32) this.addTagName(postings)
      }
      if (this.batching || postings.add(slot)) n = this.pushTermId(n, postings.id)
    }

    if (this.batching) this.forward.setSorted(slot, this.termIds, (this.batch as PostingsBatch).add(slot, this.termIds, n))
    else this.forward.set(slot, this.termIds, n)
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
    this.terms = new Map()
    this.tree = new SearchableMap()
    this.table = new TermTable()
    this.tagLists = new Map()
    this.tagTree = new SearchableMap()
    this.byId = []
    this.freeIds = []
    this.slotOf.clear()
    this.freeSlots = []
    this.slotCount = 0
    this.totalLength = 0
    this.columns.ids = new Array(this.capacity)
    this.docs = new Array(this.capacity)
    this.forward.clear()
    this.order.clear()
    this.trendingOrder.clear()
    this.folded = new Map()
    this.runs.clear()
    this.expansions.clear()
    this.typos = null
    this.typosTooLarge = false
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

    const operands: Operand[] = []
    for (const tag of tags) {
      const postings = this.tagLists.get(tag)
      if (postings === undefined) return { total: 0, ids: [] }
      operands.push({ lists: [postings], tiers: [0], scored: false, estimate: postings.length })
    }
    for (const word of words) {
      const operand = this.expand(word)
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
    const operands: Operand[] = []
    for (const tag of tags) {
      const postings = this.tagLists.get(tag)
      if (postings === undefined) return { total: 0, ids: [] }
      operands.push({ lists: [postings], tiers: [0], scored: false, estimate: postings.length })
    }
    const { matches, union } = this.scratch
    const total = matchBits(operands, matches, union)
    if (offset >= total) return { total, ids: [] }
    return { total, ids: this.trendingOrder.pageIn(matches, offset, limit).map((slot) => ids[slot] as string) }
  }

  setAliases(aliases: ReadonlyMap<string, string>): void {
    this.aliases = new TagAliases(aliases)
    this.expansions.clear()
  }

  resolveTag(name: string): string {
    return this.aliases.resolve(name)
  }

  suggest(text: string, limit: number, scan = SUGGEST_SCAN): Suggestion[] {
    // Tags are compared as catalog names (NFC, collapsed spaces, lowercase), words as indexed (folded accents).
    const tagPrefix = text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase()
    if (tagPrefix === '' || limit <= 0) return []
    const wordPrefix = foldText(tagPrefix)
    const counts = new Map<string, number>()
    let seen = 0
    for (const [term, postings] of this.tree.atPrefix(wordPrefix)) {
      if (++seen > scan) break
      counts.set(term, postings.length)
    }
    seen = 0
    for (const [tag, postings] of this.tagLists) {
      if (++seen > scan) break
      // Filter keys start with a control character: never a prefix a caller can type (trim removes them).
      if (tag.startsWith(tagPrefix)) counts.set(tag, Math.max(counts.get(tag) ?? 0, postings.length))
    }
    return [...counts]
      .map(([term, count]) => ({ term, count }))
      .sort((a, b) => b.count - a.count || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
      .slice(0, limit)
  }

  complete(word: string, limit: number): Completion[] {
    return complete(
      {
        words: this.tree,
        tags: this.tagTree,
        aliases: this.aliases.names,
        tagCount: (tag) => this.tagLists.get(tag)?.length ?? 0,
      },
      word,
      limit,
    )
  }

  private addTagName(postings: Postings): void {
    const key = foldText(postings.term)
    const list = this.tagTree.get(key)
    if (list) list.push({ name: postings.term, postings })
    else this.tagTree.set(key, [{ name: postings.term, postings }])
  }

  private removeTagName(postings: Postings): void {
    const key = foldText(postings.term)
    const list = (this.tagTree.get(key) ?? []).filter((tag) => tag.postings !== postings)
    if (list.length > 0) this.tagTree.set(key, list)
    else this.tagTree.delete(key)
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

  /** The terms a query word matches: exact, prefix (last word only) and within its edit distance. */
  private expand(word: QueryWord): Operand {
    let expansion = this.expansions.get(word)
    if (expansion === undefined) {
      expansion = this.expandTerms(word)
      this.expansions.set(word, expansion)
    }
    // Lists grow and shrink without changing what a word matches: the estimate is counted now.
    let estimate = 0
    for (const postings of expansion.lists) estimate += postings.length
    return { lists: expansion.lists, tiers: expansion.tiers, scored: true, estimate }
  }

  private expandTerms(word: QueryWord): Expansion {
    const matched = new Map<Postings, number>()
    const consider = (postings: Postings, tier: number) => {
      if (postings.length > 0 && (matched.get(postings) ?? -1) < tier) matched.set(postings, tier)
    }
    const exact = this.terms.get(word.term)
    if (exact) consider(exact, MATCH_TIERS.exact)
    if (word.prefix) {
      for (const postings of this.tree.atPrefix(word.term).values()) consider(postings, MATCH_TIERS.prefix)
    }
    const typos = word.maxDistance > 0 && word.maxDistance <= TYPO_DISTANCE ? this.typoIndex() : null
    if (typos !== null) {
      typos.match(word.term, word.maxDistance, this.termOf, (id, distance) =>
        consider(this.byId[id] as Postings, distance === 1 ? MATCH_TIERS.typo1 : MATCH_TIERS.typo2),
      )
    } else if (word.maxDistance > 0) {
      for (const [postings, distance] of this.tree.fuzzyGet(word.term, word.maxDistance).values()) {
        if (distance > 0) consider(postings, distance === 1 ? MATCH_TIERS.typo1 : MATCH_TIERS.typo2)
      }
    }
    // A word matching a word of an alias matches the alias's tag at that tier.
    this.aliases.matchWord(word, (tags, tier) => {
      for (const tag of tags) {
        const postings = this.tagLists.get(tag)
        if (postings !== undefined) consider(postings, tier)
      }
    })
    return { lists: [...matched.keys()], tiers: [...matched.values()] }
  }

  private readonly termOf = (id: number) => (this.byId[id] as Postings).term

  /** The typo index of every text term, made now if it is not yet; null if the vocabulary is too large for it. */
  private typoIndex(): TypoIndex | null {
    if (this.typos !== null || this.typosTooLarge) return this.typos
    const typos = new TypoIndex(this.typoEntries)
    for (const postings of this.terms.values()) {
      if (!typos.add(postings.term, postings.id)) {
        this.typosTooLarge = true
        return null
      }
    }
    this.typos = typos
    return typos
  }

  /** TermSink: one word of the document being added (see upsert). */
  asciiWord(text: string, start: number, end: number, hash: number): void {
    const id = this.table.find(text, start, end, hash)
    // A batch needs only the id: the list itself is not read (most words hit the table).
    if (id >= 0 && this.batching) {
      this.addedIds = this.pushTermId(this.addedIds, id)
      this.addedLength++
    } else this.addTerm(id >= 0 ? (this.byId[id] as Postings) : this.textPostings(text.slice(start, end).toLowerCase()))
  }

  foldedWord(term: string): void {
    this.addTerm(this.textPostings(term))
  }

  otherRun(text: string, start: number, end: number, hash: number): void {
    let postings = this.runs.find(text, start, end, hash)
    if (postings === undefined) {
      const run = text.slice(start, end)
      postings = this.fold(run).map((term) => this.textPostings(term))
      this.runs.add(detach(run), postings)
    }
    for (const list of postings) this.addTerm(list)
  }

  private addTerm(postings: Postings): void {
    // A batch counts every occurrence (PostingsBatch makes them frequencies); upsert adds to the list now.
    if (this.batching) this.addedIds = this.pushTermId(this.addedIds, postings.id)
    else if (postings.add(this.adding)) this.addedIds = this.pushTermId(this.addedIds, postings.id)
    this.addedLength++
  }

  /** The postings of a text term, created (and registered for lookups) on first use. */
  private textPostings(term: string): Postings {
    let postings = this.terms.get(term)
    if (postings === undefined) {
      postings = this.newPostings(detach(term))
      this.terms.set(postings.term, postings)
      this.tree.set(postings.term, postings)
      this.table.insert(postings.term, postings.id)
      if (this.typos !== null && !this.typos.add(postings.term, postings.id)) {
        this.typos = null
        this.typosTooLarge = true
      }
      this.expansions.clear()
    }
    return postings
  }

  private newPostings(term: string): Postings {
    const id = this.freeIds.length > 0 ? (this.freeIds.pop() as number) : this.byId.length
    const postings = new Postings(term, id)
    this.byId[id] = postings
    return postings
  }

  private pushTermId(n: number, id: number): number {
    if (n === this.termIds.length) this.termIds = grown(this.termIds, new Int32Array(n * 2))
    this.termIds[n] = id
    return n + 1
  }

  private removeSlot(slot: number): void {
    for (const id of this.forward.get(slot)) {
      const postings = this.byId[id] as Postings
      postings.remove(slot)
      if (postings.length > 0) continue
      // Last document with this term or tag: forget it, so expansions never meet empty lists.
      this.expansions.clear()
      if (this.tagLists.get(postings.term) === postings) {
        this.tagLists.delete(postings.term)
        this.removeTagName(postings)
      } else {
        this.terms.delete(postings.term)
        this.runs.clear()
        this.tree.delete(postings.term)
        this.table.delete(postings.term, postings.id)
        this.typos?.delete(postings.term, postings.id)
      }
      this.byId[id] = undefined
      this.freeIds.push(id)
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

/** Per-slot buffers sized to capacity; candidate buffers to the most candidates the full scoring may see. */
function createScratch(capacity: number, candidates: number): Scratch {
  let epoch = 0
  const positions = Math.max(64, Math.min(capacity, candidates))
  const scratch: Scratch = {
    mark: new Int32Array(capacity),
    best: new Float64Array(capacity),
    cand: new Int32Array(positions),
    scores: new Float64Array(positions),
    wordScores: new Float64Array(positions),
    matches: new Int32Array(Math.ceil(capacity / 32)),
    union: new Int32Array(Math.ceil(capacity / 32)),
    nextEpoch() {
      // Marks compare against the current epoch; wrap around before it overflows.
      if (epoch >= 0x7ffffff0) {
        scratch.mark.fill(0)
        epoch = 0
      }
      return ++epoch
    },
  }
  return scratch
}

export function createSearchIndex<D extends SearchDocument = SearchDocument>(
  options?: SearchIndexOptions<D>,
): MemeSearchIndex<D> {
  return new SearchIndex<D>(options)
}

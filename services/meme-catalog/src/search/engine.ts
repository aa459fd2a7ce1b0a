import SearchableMap from 'minisearch/SearchableMap'
import { ForwardIndex } from './forward.ts'
import { type CollectionStats, intersect, MATCH_TIERS, type Operand, type Scratch } from './intersect.ts'
import { detach, parseQuery, type QueryWord, tokenize } from './normalize.ts'
import { type Columns, NewestOrder } from './order.ts'
import { Postings } from './postings.ts'
import { rankTopK } from './rank.ts'
import { EmptyQueryError, type MemeSearchIndex, type SearchDocument, type SearchQuery, type SearchResult } from './types.ts'

/**
 * In-memory search over approved memes. Postings are sorted slot arrays; a query resolves the AND from the
 * rarest operand before scoring, scores only the intersection, and selects the top k instead of sorting.
 * Memory is mostly typed arrays: per-slot columns, postings and a forward index of term ids per slot.
 */
class SearchIndex implements MemeSearchIndex {
  private terms = new Map<string, Postings>()
  private tree = new SearchableMap<Postings>()
  private tagLists = new Map<string, Postings>()
  /** Postings by term id (text terms and tags share the id space); holes are reusable ids. */
  private byId: (Postings | undefined)[] = []
  private freeIds: number[] = []
  private slotOf = new Map<string, number>()
  private freeSlots: number[] = []
  private slotCount = 0
  private capacity = 0
  private totalLength = 0
  private readonly columns: Columns = { ids: [], createdAt: new Float64Array(0) }
  private docLength = new Uint32Array(0)
  private forward = new ForwardIndex()
  private order = new NewestOrder(this.columns)
  /** Folded forms of accented words already seen (see tokenize). */
  private folded = new Map<string, string>()
  private termIds = new Int32Array(256)
  // Reused by every query: search is synchronous, so two queries never share it at once.
  private scratch = createScratch(0)

  get size(): number {
    return this.slotOf.size
  }

  has(id: string): boolean {
    return this.slotOf.has(id)
  }

  upsert(doc: SearchDocument): void {
    const previous = this.slotOf.get(doc.id)
    if (previous !== undefined) this.removeSlot(previous)
    const slot = this.freeSlots.length > 0 ? (this.freeSlots.pop() as number) : this.slotCount++
    if (slot >= this.capacity) this.grow(Math.max(1024, this.capacity * 2))

    let n = 0
    const tokens = tokenize(doc.tags.length > 0 ? `${doc.caption} ${doc.tags.join(' ')}` : doc.caption, this.folded)
    for (const term of tokens) {
      let postings = this.terms.get(term)
      if (postings === undefined) {
        postings = this.newPostings(detach(term))
        this.terms.set(postings.term, postings)
        this.tree.set(postings.term, postings)
      }
      if (postings.add(slot)) n = this.pushTermId(n, postings.id)
    }
    for (const rawTag of doc.tags) {
      const tag = rawTag.toLowerCase()
      let postings = this.tagLists.get(tag)
      if (postings === undefined) {
        postings = this.newPostings(tag)
        this.tagLists.set(tag, postings)
      }
      if (postings.add(slot)) n = this.pushTermId(n, postings.id)
    }

    this.forward.set(slot, this.termIds, n)
    this.columns.ids[slot] = doc.id
    this.columns.createdAt[slot] = doc.createdAt
    this.docLength[slot] = tokens.length
    this.totalLength += tokens.length
    this.slotOf.set(doc.id, slot)
    this.order.added(slot)
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id)
    if (slot !== undefined) this.removeSlot(slot)
  }

  clear(): void {
    this.terms = new Map()
    this.tree = new SearchableMap()
    this.tagLists = new Map()
    this.byId = []
    this.freeIds = []
    this.slotOf = new Map()
    this.freeSlots = []
    this.slotCount = 0
    this.totalLength = 0
    this.columns.ids = []
    this.forward.clear()
    this.order.clear()
    this.folded = new Map()
  }

  search(query: SearchQuery): SearchResult {
    const offset = Math.max(0, Math.floor(query.offset) || 0)
    const limit = Math.max(0, Math.floor(query.limit) || 0)
    const words = query.q === undefined ? [] : parseQuery(query.q)
    if (query.q !== undefined && words.length === 0) throw new EmptyQueryError()
    const tags = [...new Set((query.tags ?? []).map((tag) => tag.toLowerCase()))]
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
    const count = intersect(operands, this.scratch, stats)
    const { scores, cand } = this.scratch
    const ids = rankTopK({ scores, cand, ...this.columns }, count, offset, limit)
    return { total: count, ids }
  }

  /** The terms a query word matches: exact, prefix (last word only) and within its edit distance. */
  private expand(word: QueryWord): Operand {
    const matched = new Map<Postings, number>()
    const consider = (postings: Postings, tier: number) => {
      if (postings.length > 0 && (matched.get(postings) ?? -1) < tier) matched.set(postings, tier)
    }
    const exact = this.terms.get(word.term)
    if (exact) consider(exact, MATCH_TIERS.exact)
    if (word.prefix) {
      for (const postings of this.tree.atPrefix(word.term).values()) consider(postings, MATCH_TIERS.prefix)
    }
    if (word.maxDistance > 0) {
      for (const [postings, distance] of this.tree.fuzzyGet(word.term, word.maxDistance).values()) {
        if (distance > 0) consider(postings, distance === 1 ? MATCH_TIERS.typo1 : MATCH_TIERS.typo2)
      }
    }
    const lists = [...matched.keys()]
    let estimate = 0
    for (const postings of lists) estimate += postings.length
    return { lists, tiers: [...matched.values()], scored: true, estimate }
  }

  private newPostings(term: string): Postings {
    const id = this.freeIds.length > 0 ? (this.freeIds.pop() as number) : this.byId.length
    const postings = new Postings(term, id)
    this.byId[id] = postings
    return postings
  }

  private pushTermId(n: number, id: number): number {
    if (n === this.termIds.length) {
      const grown = new Int32Array(n * 2)
      grown.set(this.termIds)
      this.termIds = grown
    }
    this.termIds[n] = id
    return n + 1
  }

  private removeSlot(slot: number): void {
    for (const id of this.forward.get(slot)) {
      const postings = this.byId[id] as Postings
      postings.remove(slot)
      if (postings.length > 0) continue
      // Last document with this term or tag: forget it, so expansions never meet empty lists.
      if (this.tagLists.get(postings.term) === postings) this.tagLists.delete(postings.term)
      else {
        this.terms.delete(postings.term)
        this.tree.delete(postings.term)
      }
      this.byId[id] = undefined
      this.freeIds.push(id)
    }
    this.forward.delete(slot)
    this.totalLength -= this.docLength[slot]
    this.slotOf.delete(this.columns.ids[slot] as string)
    this.columns.ids[slot] = undefined
    this.freeSlots.push(slot)
    this.order.removed(slot)
  }

  private grow(capacity: number): void {
    const createdAt = new Float64Array(capacity)
    createdAt.set(this.columns.createdAt)
    this.columns.createdAt = createdAt
    const docLength = new Uint32Array(capacity)
    docLength.set(this.docLength)
    this.docLength = docLength
    this.forward.grow(capacity)
    this.order.grow(capacity)
    this.scratch = createScratch(capacity)
    this.capacity = capacity
  }
}

function createScratch(capacity: number): Scratch {
  let epoch = 0
  const scratch: Scratch = {
    mark: new Int32Array(capacity),
    best: new Float64Array(capacity),
    cand: new Int32Array(capacity),
    scores: new Float64Array(capacity),
    wordScores: new Float64Array(capacity),
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

export function createSearchIndex(): MemeSearchIndex {
  return new SearchIndex()
}

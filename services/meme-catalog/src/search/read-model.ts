import type { MemeCounts, PublicMemeRecord } from '../memes/repository.ts'
import type { MemeT } from '../memes/schemas.ts'
import { NO_TRENDING_SCORE } from '../memes/trending.ts'
import { PerceptualHashIndex } from '../similar/hash-index.ts'
import { splitLastWord } from './complete.ts'
import { createSearchIndex } from './engine.ts'
import { type TextMatches, textMatches } from './highlight.ts'
import { parseQuery } from './normalize.ts'
import { ratingFilters } from './rating.ts'
import type { Completion, MemeSearchIndex, SearchQuery, Suggestion } from './types.ts'

export interface PageRequest {
  q?: string
  tags: string[]
  page: number
  pageSize: number
  /** 'trending': by trending score then newest (no q). */
  order?: 'relevance' | 'trending'
}

export interface Page {
  page: number
  pageSize: number
  total: number
  totalPages: number
  /** The page's memes as a JSON array (from the per-meme cache). */
  memesJson: string
  /** Their ids, in the same order. */
  ids: string[]
}

/** What matched in one meme: ranges of its caption, and of its tags by their position in its tag list. */
export interface MemeHighlight extends TextMatches {
  id: string
}

/** Entries whose JSON is kept at most: enough for every hot page, bounded however deep crawlers page. */
const JSON_CACHE_ENTRIES = 20_000
/** Distinct strings shared at most (reasons, file names, tags); past it, strings are kept as they come. */
const SHARED_STRINGS = 50_000
const NO_TAGS: string[] = []

/**
 * The public read model: every approved, non-deleted meme held in memory with its search index,
 * so list, search and get-by-id never touch the database. One instance per app; replaced whole
 * (build then swap) on a full resync.
 */
export class ReadModel {
  /** Each meme's compact record (shared strings) is kept by the index as the build received it: no copy per meme. */
  private index: MemeSearchIndex<PublicMemeRecord>
  /** Perceptual hashes of the same memes, for search by image. */
  private hashes = new PerceptualHashIndex()
  private shared = new Map<string, string>()
  /** JSON of records, built on first use and dropped on change: list pages are concatenations of these. */
  private json = new Map<string, string>()
  // Ids holding JSON, oldest first: a ring, so the cache is bounded without bookkeeping per hit.
  private cachedJson: (string | undefined)[] = new Array(JSON_CACHE_ENTRIES)
  private cachedAt = 0

  constructor(memes: MemeT[] = []) {
    // Records are indexed as they are: their rating levels come from the moderation score.
    this.index = createSearchIndex<PublicMemeRecord>({
      filtersOf: (doc) => ratingFilters(doc.moderationScore),
    })
    for (const meme of memes) this.upsert(meme)
  }

  /**
   * Builds from batches as they stream in, yielding to the event loop every `slice` memes so health and other
   * requests keep answering. The next batch is requested before this one is indexed: the database prepares it
   * meanwhile, and only one batch waits in memory beside the model. The model keeps the records it is given.
   */
  static async build(
    batches: AsyncIterable<PublicMemeRecord[]> | Iterable<PublicMemeRecord[]>,
    slice = 10_000,
  ): Promise<ReadModel> {
    const model = new ReadModel()
    const source =
      Symbol.asyncIterator in batches ? batches[Symbol.asyncIterator]() : toAsync(batches as Iterable<PublicMemeRecord[]>)
    let next = source.next()
    let indexed = 0
    try {
      for (;;) {
        const { value: memes, done } = await next
        if (done) break
        next = source.next()
        // Not awaited until this batch is indexed: a failure meanwhile must not count as unhandled.
        next.catch(() => {})
        for (let start = 0; start < memes.length; start += slice) {
          if (indexed > 0) await new Promise((resolve) => setImmediate(resolve))
          const part = start === 0 && memes.length <= slice ? memes : memes.slice(start, start + slice)
          for (const record of part) model.keep(record)
          // The records have every field of a search document: indexed (and kept) as they are, a slice at a time.
          model.index.upsertMany(part)
          indexed += part.length
        }
      }
    } finally {
      await source.return?.()
    }
    // A turn of the event loop between the last slice and the sort, as between slices.
    await new Promise((resolve) => setImmediate(resolve))
    model.settle()
    return model
  }

  /** Sorts the listing orders' waiting changes now (see MemeSearchIndex.settle): a load's end, not a reader, pays it. */
  settle(): boolean {
    return this.index.settle()
  }

  get size(): number {
    return this.index.size
  }

  /** Whether the meme is public, without building its wire form (the media hot path asks per request). */
  has(id: string): boolean {
    return this.index.has(id)
  }

  get(id: string): MemeT | undefined {
    const entry = this.index.get(id)
    return entry ? toWire(entry) : undefined
  }

  /** The compact record of a public meme (shared with the model: read it, never change it). */
  record(id: string): Readonly<PublicMemeRecord> | undefined {
    return this.index.get(id)
  }

  /** A slice of matches by offset (no clamping: past the end is empty), as records. */
  find(query: SearchQuery): { total: number; records: Readonly<PublicMemeRecord>[] } {
    const result = this.index.search(query)
    const records: PublicMemeRecord[] = []
    for (const id of result.ids) {
      const entry = this.index.get(id)
      if (entry) records.push(entry)
    }
    return { total: result.total, records }
  }

  /**
   * Public memes whose perceptual hash is within `maxDistance` bits of `hash`: nearest first, then newest first,
   * at most `limit`.
   */
  similar(hash: string, maxDistance: number, limit: number): { distance: number; meme: MemeT }[] {
    const found: { distance: number; record: Readonly<PublicMemeRecord> }[] = []
    for (const { id, distance } of this.hashes.within(hash, maxDistance)) {
      const record = this.index.get(id)
      if (record) found.push({ distance, record })
    }
    found.sort(
      (a, b) =>
        a.distance - b.distance ||
        b.record.createdAt - a.record.createdAt ||
        (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0),
    )
    return found.slice(0, limit).map(({ distance, record }) => ({ distance, meme: toWire(record) }))
  }

  /** Memes in the similar-image index (those with a perceptual hash). */
  get hashedSize(): number {
    return this.hashes.size
  }

  /** Caption words and tags starting with `text`, most used first (see MemeSearchIndex.suggest). */
  suggest(text: string, limit: number): Suggestion[] {
    return this.index.suggest(text, limit)
  }

  /**
   * Completions of the last word of a query being typed, each with the query it completes to (the text before
   * the word, then the completion). None when the text ends with a separator.
   */
  complete(text: string, limit: number): (Completion & { query: string })[] {
    const { before, word } = splitLastWord(text)
    return this.index.complete(word, limit).map((completion) => ({ ...completion, query: before + completion.value }))
  }

  /** Replaces the tag aliases (alias -> catalog tag): filters and query words naming one find the tag's memes. */
  setAliases(aliases: ReadonlyMap<string, string>): void {
    this.index.setAliases(aliases)
  }

  /** The catalog tag a tag filter names (an alias's tag, else the name). */
  resolveTag(name: string): string {
    return this.index.resolveTag(name)
  }

  /** Adds or replaces a public meme (with its perceptual hash and trending score, when the database gave them). */
  upsert(meme: MemeT & { phash?: string | null; trending?: number }): void {
    // The same fields in the same order as the repository's records: one object shape for every entry.
    this.put({
      id: meme.id,
      createdAt: Date.parse(meme.createdAt),
      byteSize: meme.byteSize,
      width: meme.width,
      height: meme.height,
      originalMime: meme.originalMime,
      originalName: meme.originalName,
      moderationScore: meme.moderationScore,
      moderationReason: meme.moderationReason,
      viewCount: meme.viewCount,
      downloadCount: meme.downloadCount,
      demo: meme.demo,
      caption: meme.caption,
      tags: [...meme.tags],
      phash: meme.phash ?? null,
      trending: meme.trending ?? NO_TRENDING_SCORE,
    })
  }

  private put(record: PublicMemeRecord): void {
    this.keep(record)
    this.index.upsert(record)
  }

  /** Prepares the record to be indexed as the meme's entry: its repeated strings are replaced by shared ones. */
  private keep(record: PublicMemeRecord): void {
    record.originalMime = record.originalMime === 'image/png' ? 'image/png' : 'image/jpeg'
    record.moderationReason = this.share(record.moderationReason)
    record.originalName = this.share(record.originalName)
    const tags = record.tags
    if (tags.length === 0) record.tags = NO_TAGS
    else for (let i = 0; i < tags.length; i++) tags[i] = this.share(tags[i])
    // No JSON is cached while a model is built: no second lookup per meme then.
    if (this.json.size !== 0) this.json.delete(record.id)
    // The hash lives in the index as two integers; the record keeps no string for it.
    this.hashes.set(record.id, record.phash)
    if (record.phash !== undefined) record.phash = null
  }

  remove(id: string): void {
    this.json.delete(id)
    this.index.remove(id)
    this.hashes.remove(id)
  }

  /** Counters change often and touch neither caption nor tags: no re-indexing, the meme moves in the trending order. */
  setCounts({ id, view_count, download_count, trending }: MemeCounts): void {
    const entry = this.index.get(id)
    if (!entry) return
    entry.viewCount = view_count
    entry.downloadCount = download_count
    entry.trending = trending
    this.index.setTrending(id, trending)
    this.json.delete(id)
  }

  /** One page; a page past the last is clamped to the last (page 1 when nothing matches). */
  list({ q, tags, page, pageSize, order }: PageRequest): Page {
    let result = this.index.search({ q, tags, order, offset: (page - 1) * pageSize, limit: pageSize })
    const totalPages = Math.ceil(result.total / pageSize)
    let served = page
    if (totalPages === 0) served = 1
    else if (page > totalPages) {
      served = totalPages
      result = this.index.search({ q, tags, order, offset: (served - 1) * pageSize, limit: pageSize })
    }
    const parts: string[] = []
    const ids: string[] = []
    for (const id of result.ids) {
      const entry = this.index.get(id)
      if (entry) {
        parts.push(this.jsonOf(entry))
        ids.push(id)
      }
    }
    return { page: served, pageSize, total: result.total, totalPages, memesJson: `[${parts.join(',')}]`, ids }
  }

  /**
   * What made each meme match: caption and tag words matching a word of q (folded and compared as the index
   * does, as ranges of the original text), and whole tags named by a tag filter (catalog spelling).
   */
  highlights(q: string | undefined, tags: readonly string[], ids: readonly string[]): MemeHighlight[] {
    const words = q === undefined ? [] : parseQuery(q)
    const filters = new Set(tags)
    const out: MemeHighlight[] = []
    for (const id of ids) {
      const entry = this.index.get(id)
      if (entry) out.push({ id, ...textMatches(entry.caption, entry.tags, words, filters) })
    }
    return out
  }

  private jsonOf(entry: PublicMemeRecord): string {
    const cached = this.json.get(entry.id)
    if (cached !== undefined) return cached
    const evicted = this.cachedJson[this.cachedAt]
    // The slot's id may have been dropped (changed) and cached again since: evict only what the ring still owns.
    if (evicted !== undefined && evicted !== entry.id) this.json.delete(evicted)
    this.cachedJson[this.cachedAt] = entry.id
    this.cachedAt = (this.cachedAt + 1) % JSON_CACHE_ENTRIES
    const json = JSON.stringify(toWire(entry))
    this.json.set(entry.id, json)
    return json
  }

  private share(text: string): string {
    const known = this.shared.get(text)
    if (known !== undefined) return known
    if (this.shared.size < SHARED_STRINGS) this.shared.set(text, text)
    return text
  }
}

/** The wire record (field order as the schema's, so the JSON matches a serialized MemeT). */
function toWire(entry: PublicMemeRecord): MemeT {
  return {
    id: entry.id,
    createdAt: new Date(entry.createdAt).toISOString(),
    byteSize: entry.byteSize,
    width: entry.width,
    height: entry.height,
    mime: 'image/webp',
    originalMime: entry.originalMime,
    // Only approved memes are public, and only public memes are in the model.
    status: 'approved',
    moderationScore: entry.moderationScore,
    moderationReason: entry.moderationReason,
    viewCount: entry.viewCount,
    downloadCount: entry.downloadCount,
    originalName: entry.originalName,
    url: `/media/${entry.id}`,
    downloadUrl: `/media/${entry.id}?download=1`,
    demo: entry.demo,
    caption: entry.caption,
    tags: entry.tags,
  }
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items
}

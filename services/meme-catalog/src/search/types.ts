/** What the search index knows of one approved meme. */
export interface SearchDocument {
  id: string
  caption: string
  tags: string[]
  /** createdAt in epoch milliseconds: the tie-breaker (newest first). */
  createdAt: number
  /** The trending score (see src/memes/trending.ts); absent or -Infinity when never viewed. */
  trending?: number
}

export interface SearchQuery {
  /** Free text; every word must match (exact, prefix on the last word, or a small typo). */
  q?: string
  /** Exact tag names, all required (AND). Already lowercased. */
  tags?: string[]
  /** 'trending': highest trending score first, then newest (no q). Default: relevance, or newest without q. */
  order?: 'relevance' | 'trending'
  offset: number
  limit: number
}

export interface SearchResult {
  total: number
  /** Ids of the requested page, best first (relevance then newest; newest first without q). */
  ids: string[]
}

export interface SearchIndexOptions<D extends SearchDocument = SearchDocument> {
  /**
   * Filter keys a document can be selected by like a tag (SearchQuery.tags), but never matched as text nor offered
   * as a suggestion, e.g. its content-rating levels. Spelled with a leading control character, which no tag name has.
   */
  filtersOf?: (doc: D) => readonly string[]
  /**
   * Size of a query's rarest operand (its words' and tags' matches) from which the total is counted on bitsets
   * and only the page is scored, by thresholds (default 20,000). Results are the same either way; tests lower it.
   */
  thresholdFrom?: number
  /**
   * Length of a term's list from which the threshold top-k reads it by impact, through a copy of its best
   * postings (default 16,384), and how many postings that copy keeps at least (default 4,096; else a sixteenth of
   * the list, deepened up to a quarter when queries read past it). Results are the same either way; tests lower
   * them.
   */
  impactFrom?: number
  impactKept?: number
  /**
   * Entries the typo index (./typos.ts) may hold (default about a million: 20 MB at most); a vocabulary needing more
   * is expanded by walking the term tree instead. Results are the same either way; tests lower it.
   */
  typoEntries?: number
}

/**
 * The in-memory index of approved memes, holding the documents it is given (D: the caller's record type, so the
 * caller needs no map of its own from id to record). Implemented in ./engine.ts.
 */
export interface MemeSearchIndex<D extends SearchDocument = SearchDocument> {
  readonly size: number
  /** Adds or replaces a document; the index keeps the object (read it, never change its indexed fields). */
  upsert(doc: D): void
  /** Adds or replaces many documents: the same index as upsert for each, built several times faster. */
  upsertMany(docs: Iterable<D>): void
  remove(id: string): void
  /** Sets a document's trending score (a counter flush): it moves in the trending listing, nothing is re-indexed. */
  setTrending(id: string, score: number): void
  has(id: string): boolean
  /** The document indexed under id, as it was given. */
  get(id: string): D | undefined
  clear(): void
  /**
   * Brings the listing orders up to date now rather than at the next listing (the end of a load: a million
   * documents arriving out of order take a sort). False when they were already up to date.
   */
  settle(): boolean
  search(query: SearchQuery): SearchResult
  /**
   * Caption words and tags starting with `text` (case- and accent-insensitive), most used first, with the number
   * of memes using each; at most `limit`, from at most `scan` words and `scan` tags (bounded work for one letter).
   */
  suggest(text: string, limit: number, scan?: number): Suggestion[]
  /**
   * Completions of one word being typed (the last word of a query): words and tag names it matches by the
   * last-word rule of search, each with the number of memes it finds, most first (see ./complete.ts).
   */
  complete(word: string, limit: number): Completion[]
  /**
   * Replaces the tag aliases (alias name -> catalog tag, both as catalog names): a tag filter naming an alias selects
   * its tag, and a query word matching a word of an alias (by the same rules as text) matches the tag's documents.
   */
  setAliases(aliases: ReadonlyMap<string, string>): void
  /** The catalog tag a tag filter names: the tag an alias stands for, else the name itself. */
  resolveTag(name: string): string
}

export interface Completion {
  /** A caption or tag word as indexed (folded), or a catalog tag name. */
  value: string
  kind: 'word' | 'tag'
  /** Approved memes using the word (caption or tags), or carrying the tag. */
  count: number
  /** Only for a tag alias (value is the alias): the catalog tag it stands for, whose memes count names. */
  aliasOf?: string
}

export interface Suggestion {
  term: string
  /** Memes whose caption or tags use the term. */
  count: number
}

/** Thrown by search() when q has no searchable word after normalization (the route answers 400). */
export class EmptyQueryError extends Error {
  constructor() {
    super('The search query has no searchable word.')
    this.name = 'EmptyQueryError'
  }
}

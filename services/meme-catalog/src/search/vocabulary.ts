import SearchableMap from 'minisearch/SearchableMap'
import { TagAliases } from './aliases.ts'
import { addTagName, type CompletionSource, complete, removeTagName, suggest } from './complete.ts'
import { type Expansion, ExpansionCache } from './expansions.ts'
import { MATCH_TIERS, type Operand } from './intersect.ts'
import { detach, type QueryWord, tokenize } from './normalize.ts'
import { Postings } from './postings.ts'
import { FoldedRuns, TermTable } from './terms.ts'
import type { Completion, Suggestion } from './types.ts'
import { TYPO_DISTANCE, TypoIndex } from './typos.ts'

/** Non-ASCII runs whose folded postings are remembered at most. */
const FOLDED_RUNS = 50_000

/**
 * The index's terms and tags, each with its postings under an id (text terms and tags share the id space), and
 * what a query word expands to among them. The engine fills the lists with slots; the vocabulary says which
 * list a word, run or tag is, and forgets a list once the engine has emptied it (see drop).
 */
export class Vocabulary {
  private terms = new Map<string, Postings>()
  private tree = new SearchableMap<Postings>()
  private tagLists = new Map<string, Postings>()
  /** Catalog tags by folded name, for completions (filter keys are left out). */
  private tagTree: CompletionSource['tags'] = new SearchableMap()
  /** Text terms by their characters (indexing ASCII text without a substring per word). */
  private table = new TermTable()
  /** Postings by term id; holes are reusable ids. */
  private postings: (Postings | undefined)[] = []
  private freeIds: number[] = []
  /** Folded forms of accented words already seen (see tokenize). */
  private folded = new Map<string, string>()
  /** The postings of the non-ASCII runs already seen; cleared when a text term is dropped. */
  private runs = new FoldedRuns<Postings>(FOLDED_RUNS)
  private aliases = new TagAliases()
  /** Recent query words' expansions; cleared whenever a term, tag or alias comes or goes. */
  private expansions = new ExpansionCache()
  /**
   * Text terms by deletion neighbourhood, for typo expansions: made on the first one (a load does not pay it) and
   * kept up to date with the terms; null before that, and for good (until clear) if the vocabulary outgrows it.
   */
  private typos: TypoIndex | null = null
  private typosTooLarge = false
  readonly fold = (text: string) => tokenize(text, this.folded)

  constructor(private readonly typoEntries: number) {}

  /** Postings by term id, for the engine's batch flush and removals (holes: free ids). */
  get byId(): readonly (Postings | undefined)[] {
    return this.postings
  }

  /** The id of the text term equal to lowercased text[start, end) (hashed as scanText does), or -1. */
  findAscii(text: string, start: number, end: number, hash: number): number {
    return this.table.find(text, start, end, hash)
  }

  /** The postings of the terms a non-ASCII run folds to (see scanText), created on first use. */
  runPostings(text: string, start: number, end: number, hash: number): Postings[] {
    let postings = this.runs.find(text, start, end, hash)
    if (postings === undefined) {
      const run = text.slice(start, end)
      postings = this.fold(run).map((term) => this.textPostings(term))
      this.runs.add(detach(run), postings)
    }
    return postings
  }

  /** The postings of a text term, created (and registered for lookups) on first use. */
  textPostings(term: string): Postings {
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

  /** The postings of a tag or filter key (lowercased), created on first use. */
  tagPostings(tag: string): Postings {
    let postings = this.tagLists.get(tag)
    if (postings === undefined) {
      postings = this.newPostings(tag)
      this.tagLists.set(tag, postings)
      this.expansions.clear()
      if (tag.charCodeAt(0) >= 32) addTagName(this.tagTree, { name: tag, postings })
    }
    return postings
  }

  /** The postings of a tag, if a document carries it. */
  tag(tag: string): Postings | undefined {
    return this.tagLists.get(tag)
  }

  /** Forgets an emptied list (its last document is gone), so expansions never meet empty lists; frees its id. */
  drop(postings: Postings): void {
    this.expansions.clear()
    if (this.tagLists.get(postings.term) === postings) {
      this.tagLists.delete(postings.term)
      removeTagName(this.tagTree, postings.term, postings)
    } else {
      this.terms.delete(postings.term)
      this.runs.clear()
      this.tree.delete(postings.term)
      this.table.delete(postings.term, postings.id)
      this.typos?.delete(postings.term, postings.id)
    }
    this.postings[postings.id] = undefined
    this.freeIds.push(postings.id)
  }

  /** Forgets every term and tag (aliases stay). */
  clear(): void {
    this.terms = new Map()
    this.tree = new SearchableMap()
    this.table = new TermTable()
    this.tagLists = new Map()
    this.tagTree = new SearchableMap()
    this.postings = []
    this.freeIds = []
    this.folded = new Map()
    this.runs.clear()
    this.expansions.clear()
    this.typos = null
    this.typosTooLarge = false
  }

  setAliases(aliases: ReadonlyMap<string, string>): void {
    this.aliases = new TagAliases(aliases)
    this.expansions.clear()
  }

  resolveTag(name: string): string {
    return this.aliases.resolve(name)
  }

  suggest(text: string, limit: number, scan: number): Suggestion[] {
    return suggest(this.tree, this.tagLists, text, limit, scan)
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

  /** The terms a query word matches: exact, prefix (last word only) and within its edit distance. */
  expand(word: QueryWord): Operand {
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
        consider(this.postings[id] as Postings, distance === 1 ? MATCH_TIERS.typo1 : MATCH_TIERS.typo2),
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

  private readonly termOf = (id: number) => (this.postings[id] as Postings).term

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

  private newPostings(term: string): Postings {
    const id = this.freeIds.length > 0 ? (this.freeIds.pop() as number) : this.postings.length
    const postings = new Postings(term, id)
    this.postings[id] = postings
    return postings
  }
}

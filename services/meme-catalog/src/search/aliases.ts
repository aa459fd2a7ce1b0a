import SearchableMap from 'minisearch/SearchableMap'
import type { CompletionSource } from './complete.ts'
import { MATCH_TIERS } from './intersect.ts'
import { foldText, type QueryWord, tokenize } from './normalize.ts'

/**
 * Tag aliases as the index reads them, built whole from alias name -> catalog tag: by name for tag filters, by
 * folded word for query words, by folded name for completions. Replaced, never changed, when aliases change.
 */
export class TagAliases {
  private readonly tags = new Map<string, string>()
  private readonly words = new SearchableMap<string[]>()
  /** Aliases by folded name, each with the catalog tag it stands for. */
  readonly names: NonNullable<CompletionSource['aliases']> = new SearchableMap()

  constructor(aliases: ReadonlyMap<string, string> = new Map()) {
    for (const [alias, tag] of aliases) {
      this.tags.set(alias, tag)
      const key = foldText(alias)
      const named = this.names.get(key)
      if (named) named.push({ name: alias, tag })
      else this.names.set(key, [{ name: alias, tag }])
      for (const word of tokenize(alias)) {
        const tags = this.words.get(word)
        if (tags === undefined) this.words.set(word, [tag])
        else if (!tags.includes(tag)) tags.push(tag)
      }
    }
  }

  /** The catalog tag a tag filter names: the tag an alias stands for, else the name itself. */
  resolve(name: string): string {
    return this.tags.get(name) ?? name
  }

  /** Tags whose alias has a word the query word matches (exact, prefix, typo), each with the tier of that match. */
  matchWord(word: QueryWord, matched: (tags: string[], tier: number) => void): void {
    if (this.words.size === 0) return
    const exact = this.words.get(word.term)
    if (exact) matched(exact, MATCH_TIERS.exact)
    if (word.prefix) for (const tags of this.words.atPrefix(word.term).values()) matched(tags, MATCH_TIERS.prefix)
    if (word.maxDistance > 0) {
      for (const [tags, distance] of this.words.fuzzyGet(word.term, word.maxDistance).values()) {
        if (distance > 0) matched(tags, distance === 1 ? MATCH_TIERS.typo1 : MATCH_TIERS.typo2)
      }
    }
  }
}

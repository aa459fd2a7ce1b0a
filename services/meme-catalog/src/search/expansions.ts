import type { QueryWord } from './normalize.ts'
import type { Postings } from './postings.ts'

/** Query words remembered at most; past that the oldest is forgotten first. */
const REMEMBERED = 4096

/** The terms (and alias tags) a query word matches, with the tier of each match. */
export interface Expansion {
  readonly lists: readonly Postings[]
  readonly tiers: readonly number[]
}

/**
 * Expansions of recent query words: the same words come back, and an expansion's prefix walk and list gathering
 * are then skipped (its typo lookup is cheap since ./typos.ts: a few microseconds). An expansion holds as long as
 * no term, tag or alias is added or dropped, so the index forgets them all on any such change (`clear`).
 */
export class ExpansionCache {
  private readonly byWord = new Map<string, Expansion>()

  get(word: QueryWord): Expansion | undefined {
    return this.byWord.get(keyOf(word))
  }

  set(word: QueryWord, expansion: Expansion): void {
    if (this.byWord.size >= REMEMBERED) this.byWord.delete(this.byWord.keys().next().value as string)
    this.byWord.set(keyOf(word), expansion)
  }

  clear(): void {
    if (this.byWord.size > 0) this.byWord.clear()
  }
}

// The rule is part of the key: "the" as a prefix matches more terms than "the" alone.
const keyOf = (word: QueryWord) => `${word.maxDistance}${word.prefix ? '*' : ' '}${word.term}`

/**
 * The baseline: minisearch tuned the way its users tune it (one combined field, the same
 * folding, prefix only on the last word, typo distance by length, AND). Its result sets are the same as the
 * engine's; only the cost differs.
 */
import MiniSearch from 'minisearch'
import { foldText, MIN_PREFIX_LENGTH, maxTypos } from '../src/search/normalize.ts'
import type { SearchDocument } from '../src/search/types.ts'

export interface TunedMiniSearch {
  search(q: string, limit: number): { total: number; ids: string[] }
}

export function createTunedMiniSearch(documents: SearchDocument[]): TunedMiniSearch {
  const mini = new MiniSearch<{ id: string; text: string }>({
    fields: ['text'],
    tokenize: (text) => text.split(/[^\p{L}\p{N}]+/u),
    processTerm: (term) => (term === '' ? null : foldText(term)),
    searchOptions: {
      combineWith: 'AND',
      prefix: (term, i, terms) => i === terms.length - 1 && term.length >= MIN_PREFIX_LENGTH,
      fuzzy: (term) => maxTypos(term.length),
    },
  })
  for (const doc of documents) {
    mini.add({ id: doc.id, text: `${doc.caption} ${doc.tags.join(' ')}` })
  }
  return {
    search(q, limit) {
      // Already sorted by score; ties stay in minisearch's order (re-sorting would only slow the baseline down).
      const results = mini.search(q)
      return { total: results.length, ids: results.slice(0, limit).map((r) => r.id as string) }
    },
  }
}

import { withinDistance } from '../search/highlight.ts'
import { maxTypos, tokenize } from '../search/normalize.ts'

/** A catalog name to look for: a tag's own name, or one of its aliases (which stands for the tag). */
export interface CatalogName {
  tag: string
  name: string
}

export interface TagMatch {
  tag: string
  /** The words of the text that matched (folded like search terms). */
  matchedText: string
}

// Past these a text or a catalog is not read further: the work of one meme stays bounded whatever was stored.
export const MAX_TEXT_WORDS = 400
export const MAX_CATALOG_NAMES = 20_000

/** Does a text word match a name's word by the search rule for a whole query word (exact, or within its typos)? */
function wordMatches(nameWord: string, textWord: string): boolean {
  if (nameWord === textWord) return true
  const typos = maxTypos(nameWord.length)
  return typos > 0 && withinDistance(nameWord, textWord, typos)
}

/**
 * Catalog tags whose name or alias appears in `text`, word for word in order, each word matched as search matches a
 * query word (lowercased, accents stripped, 1 typo for 5–8 letters, 2 for 9+). One match per tag, in catalog order.
 */
export function tagsMatchingText(text: string, catalog: CatalogName[], exclude: ReadonlySet<string> = new Set()): TagMatch[] {
  const words = tokenize(text).slice(0, MAX_TEXT_WORDS)
  if (words.length === 0) return []
  // Positions of the text's words by length: a name's first word is compared only with words it could be within reach of.
  const positionsByLength = new Map<number, number[]>()
  for (let at = 0; at < words.length; at++) {
    const list = positionsByLength.get(words[at].length)
    if (list) list.push(at)
    else positionsByLength.set(words[at].length, [at])
  }
  const found = new Map<string, TagMatch>()
  for (const { tag, name } of catalog.slice(0, MAX_CATALOG_NAMES)) {
    if (found.has(tag) || exclude.has(tag)) continue
    const nameWords = tokenize(name)
    if (nameWords.length === 0 || nameWords.length > words.length) continue
    const first = nameWords[0]
    const reach = maxTypos(first.length)
    search: for (let length = first.length - reach; length <= first.length + reach; length++) {
      for (const start of positionsByLength.get(length) ?? []) {
        if (start + nameWords.length > words.length) continue
        let all = true
        for (let k = 0; k < nameWords.length && all; k++) all = wordMatches(nameWords[k], words[start + k])
        if (all) {
          found.set(tag, { tag, matchedText: words.slice(start, start + nameWords.length).join(' ') })
          break search
        }
      }
    }
  }
  return [...found.values()]
}

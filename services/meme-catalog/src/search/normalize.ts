/** Text normalization shared by indexing and querying, so both sides agree on what a term is. */

// Printable ASCII and common whitespace take the fast path; anything else goes through NFD.
const ASCII_ONLY = /^[ -~\t\n\r]*$/
const ASCII_SPLIT = /[^a-z0-9]+/
// Combining marks stay inside words here and are stripped per word (text may arrive decomposed).
const UNICODE_SPLIT = /[^\p{L}\p{N}\p{M}]+/u
const COMBINING_MARKS = /\p{M}+/gu

/** Lowercase, decompose (NFD) and strip diacritics: "Crème BRÛLÉE" -> "creme brulee". */
export function foldText(text: string): string {
  const lower = text.toLowerCase()
  if (ASCII_ONLY.test(lower)) return lower
  // Lowercase before NFD: some capitals lowercase to a letter plus a combining mark (İ -> i̇).
  return lower.normalize('NFD').replace(COMBINING_MARKS, '')
}

/**
 * Terms of a text in order (duplicates kept, for term frequencies): split on anything that is not a letter,
 * digit or combining mark, then each word folded. `cache` remembers folded words (indexing sees the same
 * accented words again and again); it is cleared when it grows past 50,000 entries.
 */
export function tokenize(text: string, cache?: Map<string, string>): string[] {
  const lower = text.toLowerCase()
  const ascii = ASCII_ONLY.test(lower)
  const parts = lower.split(ascii ? ASCII_SPLIT : UNICODE_SPLIT)
  let write = 0
  for (let read = 0; read < parts.length; read++) {
    let term = parts[read]
    if (!ascii && term !== '') {
      const cached = cache?.get(term)
      if (cached !== undefined) term = cached
      else {
        const folded = ASCII_ONLY.test(term) ? term : term.normalize('NFD').replace(COMBINING_MARKS, '')
        if (cache) {
          if (cache.size >= 50_000) cache.clear()
          cache.set(detach(term), detach(folded))
        }
        term = folded
      }
    }
    // split() yields empty strings at the edges; a word of marks alone folds to nothing.
    if (term !== '') parts[write++] = term
  }
  parts.length = write
  return parts
}

/**
 * A copy of a word that does not point into the text it was split from: V8 makes longer substrings views of
 * their parent, and a kept term would otherwise keep its whole caption alive.
 */
export function detach(word: string): string {
  return ` ${word}`.slice(1)
}

/** Shortest last query word that also matches as a prefix ("mem" finds "meme", "memes"). */
export const MIN_PREFIX_LENGTH = 3

/** Largest edit distance a query word of this length tolerates: none under 5 letters, 1 for 5-8, 2 for 9+. */
export function maxTypos(length: number): number {
  if (length >= 9) return 2
  if (length >= 5) return 1
  return 0
}

export interface QueryWord {
  term: string
  /** Whether the word also matches as a prefix (the last word of the query, when long enough). */
  prefix: boolean
  maxDistance: number
}

/**
 * The words of a query, each with its own rule: only the last one typed may be a prefix, so "the the" asks
 * for an exact "the" and a prefix "the". Repeats with the same rule count once. Empty when nothing is searchable.
 */
export function parseQuery(q: string): QueryWord[] {
  const terms = tokenize(q)
  const words = new Map<string, QueryWord>()
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i]
    const prefix = i === terms.length - 1 && term.length >= MIN_PREFIX_LENGTH
    const key = `${prefix ? 'prefix' : 'exact'} ${term}`
    if (!words.has(key)) words.set(key, { term, prefix, maxDistance: maxTypos(term.length) })
  }
  return [...words.values()]
}

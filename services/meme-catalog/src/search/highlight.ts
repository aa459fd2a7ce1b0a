import { foldText, type QueryWord } from './normalize.ts'

/** A matched piece of a text: UTF-16 offsets into the original text, end exclusive. */
export interface TextRange {
  start: number
  end: number
}

const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u

/**
 * Whether a character starts or continues a word as the index splits text (letters, digits, combining marks).
 * ASCII is decided by its code; the rest by one code point at a time (no regex over the whole text).
 */
function isWordCharacter(text: string, at: number, code: number): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
  return WORD_CHARACTER.test(String.fromCodePoint(text.codePointAt(at) as number))
}

/**
 * The words of `text` that match a query word, as ranges of the original text: each word is folded as the index
 * folds it (lowercase, accents removed) and compared by the search's rule (exact, prefix for the last word,
 * within its typo distance), so "Crème" is found by "creme" and "crme" alike. Linear in the text.
 */
export function matchedRanges(text: string, words: readonly QueryWord[]): TextRange[] {
  const ranges: TextRange[] = []
  if (words.length === 0) return ranges
  let start = -1
  for (let i = 0; i <= text.length; ) {
    const code = i < text.length ? text.charCodeAt(i) : 32
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1
    const inWord = i < text.length && isWordCharacter(text, i, code)
    if (inWord && start < 0) start = i
    else if (!inWord && start >= 0) {
      const term = foldText(text.slice(start, i))
      if (term !== '' && words.some((word) => matches(word, term))) ranges.push({ start, end: i })
      start = -1
    }
    i += width
  }
  return ranges
}

/** What matched in one meme's text: caption ranges, and tags by their position in its tag list. */
export interface TextMatches {
  caption: TextRange[]
  tags: { index: number; ranges: TextRange[] }[]
}

/** Caption and tag words matching a query word, and the whole of each tag a filter names (catalog spelling). */
export function textMatches(
  caption: string,
  tags: readonly string[],
  words: readonly QueryWord[],
  filters: ReadonlySet<string> = new Set(),
): TextMatches {
  const matchedTags: TextMatches['tags'] = []
  tags.forEach((tag, index) => {
    const ranges = filters.has(tag.toLowerCase()) ? [{ start: 0, end: tag.length }] : matchedRanges(tag, words)
    if (ranges.length > 0) matchedTags.push({ index, ranges })
  })
  return { caption: matchedRanges(caption, words), tags: matchedTags }
}

/** The items (in text order, not overlapping) that share a character with one of the ranges (same). Linear. */
export function overlapping<T extends TextRange>(items: readonly T[], ranges: readonly TextRange[]): T[] {
  const out: T[] = []
  let r = 0
  for (const item of items) {
    while (r < ranges.length && ranges[r].end <= item.start) r++
    if (r < ranges.length && ranges[r].start < item.end) out.push(item)
  }
  return out
}

function matches(word: QueryWord, term: string): boolean {
  if (term === word.term) return true
  if (word.prefix && term.startsWith(word.term)) return true
  return word.maxDistance > 0 && withinDistance(word.term, term, word.maxDistance)
}

/** Levenshtein distance of a and b is at most d: a band of 2d+1 cells per row (d is at most 2). */
export function withinDistance(a: string, b: string, d: number): boolean {
  if (Math.abs(a.length - b.length) > d) return false
  const big = d + 1
  let previous = new Array<number>(b.length + 1)
  let current = new Array<number>(b.length + 1)
  for (let j = 0; j <= b.length; j++) previous[j] = j <= d ? j : big
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - d)
    const to = Math.min(b.length, i + d)
    current[0] = i <= d ? i : big
    // Cells beside the band are read by the next row: mark them out of reach instead of clearing the row.
    if (from > 1) current[from - 1] = big
    if (to < b.length) current[to + 1] = big
    let best = current[0]
    for (let j = from; j <= to; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      current[j] = Math.min(previous[j - 1] + cost, previous[j] + 1, current[j - 1] + 1, big)
      if (current[j] < best) best = current[j]
    }
    if (best > d) return false
    ;[previous, current] = [current, previous]
  }
  return previous[b.length] <= d
}

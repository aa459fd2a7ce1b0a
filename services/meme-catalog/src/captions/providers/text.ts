import { MAX_CAPTION_LENGTH } from '../../memes/schemas.ts'

/** C0 controls and DEL except tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
export const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

// The first character that survives trimming: neither whitespace nor a control character.
// biome-ignore lint/suspicious/noControlCharactersInRegex: skipping them is the point
const FIRST_KEPT = /[^\s\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/** Cuts to `max` characters as PostgreSQL and JSON Schema count them (code points, not UTF-16 units). */
export function clampCaption(text: string, max = MAX_CAPTION_LENGTH): string {
  const start = text.search(FIRST_KEPT)
  if (start < 0) return ''
  // Only the first `max` code points (at most 2 units each) can survive: the rest of a huge answer is never read.
  const head = text.slice(start, start + 2 * max)
  // Control characters (NUL above all: PostgreSQL text refuses it) never reach the database.
  const trimmed = head.replace(CONTROL_CHARACTERS, ' ').trim()
  if (trimmed.length <= max) return trimmed
  const points = Array.from(trimmed)
  return points.length <= max ? trimmed : points.slice(0, max).join('').trimEnd()
}

const fold = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()

// Far more than a 2000 px image holds; past it an OCR result is noise, and reading it would only cost time.
export const MAX_OCR_TEXT_LENGTH = 64 * 1024

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/** Does a cut at `index` fall between the two halves of a surrogate pair? */
const splitsPair = (text: string, index: number) =>
  index > 0 && isHigh(text.charCodeAt(index - 1)) && isLow(text.charCodeAt(index))

/** The first `length` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
const cut = (text: string, length: number) => text.slice(0, splitsPair(text, length) ? length - 1 : length)

/**
 * OCR output to a caption: one line per text line joined by spaces, runs of whitespace collapsed,
 * and lines that are mostly specks (few letters or digits) dropped.
 */
export function cleanOcrText(raw: string, max = MAX_CAPTION_LENGTH): string {
  const lines: string[] = []
  let kept = 0
  for (const line of cut(raw, MAX_OCR_TEXT_LENGTH).split(/\r?\n/)) {
    const text = line.replace(/[\s\u00a0]+/g, ' ').trim()
    const alnum = text.match(/[\p{L}\p{N}]/gu)?.length ?? 0
    if (alnum < 2 || alnum / text.replace(/ /g, '').length < 0.6) continue
    lines.push(text)
    // Letters and digits survive clampCaption: once there are more than `max`, later lines would be cut.
    kept += alnum
    if (kept > max) break
  }
  return clampCaption(lines.join(' '), max)
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

/** The code point that ends just before `index` (a surrogate pair counts as one). */
function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined
  return splitsPair(text, index - 1) ? text.codePointAt(index - 2) : text.charCodeAt(index - 1)
}

const isLetterOrDigit = (point: number | undefined) => point !== undefined && LETTER_OR_DIGIT.test(String.fromCodePoint(point))

/** Case- and accent-insensitive text with every run of whitespace as one space. */
const foldWords = (text: string) => fold(text).trim().replace(/\s+/g, ' ')

/** Does `needle` occur in `haystack` with neither a letter nor a digit right before or after it? */
function containsWord(haystack: string, needle: string): boolean {
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const end = at + needle.length
    // A match must not start or end inside a surrogate pair (a regular expression with the u flag would not).
    if (splitsPair(haystack, at) || splitsPair(haystack, end)) continue
    if (!isLetterOrDigit(codePointBefore(haystack, at)) && !isLetterOrDigit(haystack.codePointAt(end))) return true
  }
  return false
}

/**
 * Catalog tags whose name appears in `text` as a whole word (case- and accent-insensitive; any whitespace
 * between the words of a tag). Plain substring search, so the work grows with the text, never explodes.
 */
export function tagsInText(text: string, catalog: string[]): string[] {
  const haystack = foldWords(text)
  const found: string[] = []
  for (const tag of catalog) {
    const needle = foldWords(tag)
    if (needle && containsWord(haystack, needle)) found.push(tag)
  }
  return found
}

/** Lowercased, trimmed, unique names that exist in the catalog; everything else is dropped. */
export function keepCatalogTags(tags: unknown[], catalog: string[]): string[] {
  const known = new Set(catalog)
  const kept = new Set<string>()
  for (const tag of tags) {
    if (typeof tag !== 'string') continue
    const name = tag.normalize('NFC').trim().toLowerCase()
    if (known.has(name)) kept.add(name)
  }
  return [...kept]
}

import type SearchableMap from 'minisearch/SearchableMap'
import { foldText, maxTypos, tokenize } from './normalize.ts'
import type { Completion, Suggestion } from './types.ts'

/** Completions one request returns at most. */
export const MAX_COMPLETIONS = 10
/** Longest word completed (longer ones are no typing in progress; it bounds the typo matrix too). */
export const MAX_COMPLETION_WORD = 60
/**
 * Words, and separately tags, a completion looks at: bounds the work of a one-letter prefix. Below it the
 * ranking is exact; past it (a vocabulary far larger than the catalog's), the best of the first ones seen.
 */
export const COMPLETION_SCAN = 20_000
/** Vocabulary entries a suggestion looks at by default: bounds the work of a short prefix. */
export const SUGGEST_SCAN = 5000

/** What a completion reads from the index: the counts are the lengths of the postings it holds. */
export interface CompletionSource {
  words: SearchableMap<{ length: number }>
  /** Catalog tags by their folded name (several names can fold alike); filter keys are not in it. */
  tags: SearchableMap<{ name: string; postings: { length: number } }[]>
  /** Tag aliases by their folded name, each with the catalog tag it stands for. */
  aliases?: SearchableMap<{ name: string; tag: string }[]>
  /** Memes carrying a catalog tag (an alias finds its tag's memes). */
  tagCount?: (tag: string) => number
}

/** A catalog tag's entry in CompletionSource['tags']: its name, and the postings that count its memes. */
type TagName = { name: string; postings: { length: number } }

export function addTagName<T extends TagName>(tags: SearchableMap<T[]>, tag: T): void {
  const key = foldText(tag.name)
  const list = tags.get(key)
  if (list) list.push(tag)
  else tags.set(key, [tag])
}

export function removeTagName<T extends TagName>(tags: SearchableMap<T[]>, name: string, postings: T['postings']): void {
  const key = foldText(name)
  const list = (tags.get(key) ?? []).filter((tag) => tag.postings !== postings)
  if (list.length > 0) tags.set(key, list)
  else tags.delete(key)
}

/**
 * Words and tags starting with `text`, with the number of memes using each (most first, ties by name); at most
 * `limit`, from at most `scan` words and `scan` tags.
 */
export function suggest(
  words: SearchableMap<{ length: number }>,
  tags: ReadonlyMap<string, { length: number }>,
  text: string,
  limit: number,
  scan: number,
): Suggestion[] {
  // Tags are compared as catalog names (NFC, collapsed spaces, lowercase), words as indexed (folded accents).
  const tagPrefix = text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase()
  if (tagPrefix === '' || limit <= 0) return []
  const wordPrefix = foldText(tagPrefix)
  const counts = new Map<string, number>()
  let seen = 0
  for (const [term, postings] of words.atPrefix(wordPrefix)) {
    if (++seen > scan) break
    counts.set(term, postings.length)
  }
  seen = 0
  for (const [tag, postings] of tags) {
    if (++seen > scan) break
    // Filter keys start with a control character: never a prefix a caller can type (trim removes them).
    if (tag.startsWith(tagPrefix)) counts.set(tag, Math.max(counts.get(tag) ?? 0, postings.length))
  }
  return [...counts]
    .map(([term, count]) => ({ term, count }))
    .sort((a, b) => b.count - a.count || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
    .slice(0, limit)
}

const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u

/**
 * Splits a query being typed into what comes before its last word and that word, as typed. No word when the
 * text ends with a separator (the last word is finished). A backward scan, one character at a time: linear.
 */
export function splitLastWord(text: string): { before: string; word: string } {
  let start = text.length
  while (start > 0) {
    const code = text.codePointAt(start - 1) as number
    // A low surrogate ends a pair: test the whole code point.
    const width = code >= 0xdc00 && code <= 0xdfff && start >= 2 ? 2 : 1
    if (!WORD_CHARACTER.test(text.slice(start - width, start))) break
    start -= width
  }
  return { before: text.slice(0, start), word: text.slice(start) }
}

/**
 * Words and tag names completing `typed` (one word as typed) by the last-word rule of search: starting with
 * it, or within its typo distance (none under 5 letters, 1 for 5-8, 2 for 9+). Each counted by the approved
 * memes it finds (memes using the word in caption or tags; memes carrying the tag), most first, ties by name.
 */
export function complete(source: CompletionSource, typed: string, limit: number): Completion[] {
  const word = tokenize(typed)[0]
  if (word === undefined || word.length > MAX_COMPLETION_WORD || limit <= 0) return []
  const top = new TopCompletions(Math.min(limit, MAX_COMPLETIONS))
  const distance = maxTypos(word.length)

  const words = new Set<string>()
  walkPrefix(source.words, word, (term, postings) => {
    words.add(term)
    top.offer(term, 'word', postings.length)
  })
  if (distance > 0) {
    for (const [term, [postings]] of source.words.fuzzyGet(word, distance)) {
      if (!words.has(term)) top.offer(term, 'word', postings.length)
    }
  }

  const tags = new Set<string>()
  const offerTags = (list: { name: string; postings: { length: number } }[]) => {
    for (const tag of list) {
      if (tags.has(tag.name)) continue
      tags.add(tag.name)
      top.offer(tag.name, 'tag', tag.postings.length)
    }
  }
  walkPrefix(source.tags, word, (_, list) => offerTags(list))
  if (distance > 0) for (const [, [list]] of source.tags.fuzzyGet(word, distance)) offerTags(list)

  // An alias is offered under its own name (what was typed matches it), counted by its tag's memes.
  const { aliases, tagCount } = source
  if (aliases && tagCount) {
    const offerAliases = (list: { name: string; tag: string }[]) => {
      for (const alias of list) {
        if (tags.has(alias.name)) continue
        tags.add(alias.name)
        top.offer(alias.name, 'tag', tagCount(alias.tag), alias.tag)
      }
    }
    walkPrefix(aliases, word, (_, list) => offerAliases(list))
    if (distance > 0) for (const [, [list]] of aliases.fuzzyGet(word, distance)) offerAliases(list)
  }
  return top.list()
}

/** A node of minisearch's radix tree: edge labels to children, '' to the value of the key ending here. */
type RadixNode = Map<string, unknown>

/**
 * Visits the entries under a prefix (at most COMPLETION_SCAN), straight over the tree's nodes: minisearch's
 * iterator rebuilds each key from its path, which made a one-letter prefix several times dearer.
 */
function walkPrefix<V>(map: SearchableMap<V>, prefix: string, visit: (key: string, value: V) => void): void {
  const view = map.atPrefix(prefix) as unknown as { _tree: RadixNode; _prefix: string }
  let budget = COMPLETION_SCAN
  const walk = (node: RadixNode, key: string): void => {
    for (const [label, child] of node) {
      if (budget <= 0) return
      if (label === '') {
        budget--
        visit(key, child as V)
      } else walk(child as RadixNode, key + label)
    }
  }
  walk(view._tree, view._prefix)
}

/** The best `k` so far, best first, by count then value then kind (a word before a tag of the same name). */
class TopCompletions {
  private readonly items: Completion[] = []

  constructor(private readonly k: number) {}

  offer(value: string, kind: Completion['kind'], count: number, aliasOf?: string): void {
    const items = this.items
    if (count === 0) return
    if (items.length === this.k && !better(value, kind, count, items[this.k - 1] as Completion)) return
    let at = items.length < this.k ? items.length : this.k - 1
    while (at > 0 && better(value, kind, count, items[at - 1] as Completion)) at--
    if (items.length === this.k) items.pop()
    items.splice(at, 0, aliasOf === undefined ? { value, kind, count } : { value, kind, count, aliasOf })
  }

  list(): Completion[] {
    return this.items
  }
}

function better(value: string, kind: Completion['kind'], count: number, than: Completion): boolean {
  if (count !== than.count) return count > than.count
  if (value !== than.value) return value < than.value
  return kind === 'word' && than.kind === 'tag'
}

/**
 * A deliberately naive reference for the engine tests: it checks every term of every document against every
 * query word, with its own folding and Levenshtein, and sorts everything. Slow, but obviously right.
 */
import type { Test } from 'tap'
import type { MemeSearchIndex, SearchDocument } from '../../src/search/types.ts'

const fold = (text: string) => text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '')
export const terms = (text: string) =>
  fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== '')

export function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]
      row[j] = Math.min(above + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]
}

/** Score floor of a document term for a query word, -1 when it does not match (exact, prefix, typo by length). */
export function matchTier(word: string, isLast: boolean, term: string): number {
  if (term === word) return 300
  let tier = -1
  if (isLast && word.length >= 3 && term.startsWith(word)) tier = 200
  const allowed = word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0
  if (allowed > 0 && Math.abs(term.length - word.length) <= allowed) {
    const distance = levenshtein(word, term)
    if (distance === 1) tier = Math.max(tier, 100)
    else if (distance === 2 && allowed === 2) tier = Math.max(tier, 0)
  }
  return tier
}

const cache = new WeakMap<SearchDocument, string[]>()
function termsOf(doc: SearchDocument): string[] {
  let list = cache.get(doc)
  if (!list) {
    list = terms(`${doc.caption} ${doc.tags.join(' ')}`)
    cache.set(doc, list)
  }
  return list
}

export interface Ranked {
  id: string
  score: number
  createdAt: number
}

/** Every match of q (may be undefined) and tags, best first: score desc, createdAt desc, id desc. */
export function referenceSearch(docs: Iterable<SearchDocument>, q: string | undefined, tags: string[] = []): Ranked[] {
  const all = [...docs]
  const docTerms = all.map((doc) => termsOf(doc))
  const df = new Map<string, number>()
  let totalLength = 0
  for (const list of docTerms) {
    totalLength += list.length
    for (const term of new Set(list)) df.set(term, (df.get(term) ?? 0) + 1)
  }
  const n = all.length
  const avg = totalLength / Math.max(1, n)
  const queryTerms = q === undefined ? [] : terms(q)
  // Each occurrence keeps its own rule (only the last may be a prefix); the same word with the same rule counts once.
  const words = [
    ...new Map(
      queryTerms.map((word, i) => {
        const isLast = i === queryTerms.length - 1 && word.length >= 3
        return [`${isLast} ${word}`, { word, isLast }] as const
      }),
    ).values(),
  ]
  // Same answer for the same (word, term) pair: computed once per call.
  const tiers = new Map<string, number>()
  const tierOf = (word: string, isLast: boolean, term: string) => {
    const key = `${word} ${isLast} ${term}`
    let tier = tiers.get(key)
    if (tier === undefined) {
      tier = matchTier(word, isLast, term)
      tiers.set(key, tier)
    }
    return tier
  }
  const ranked: Ranked[] = []
  all.forEach((doc, i) => {
    if (!tags.every((tag) => doc.tags.map((t) => t.toLowerCase()).includes(tag))) return
    const tf = new Map<string, number>()
    for (const term of docTerms[i]) tf.set(term, (tf.get(term) ?? 0) + 1)
    let score = 0
    for (const { word, isLast } of words) {
      let best = -1
      for (const [term, count] of tf) {
        const tier = tierOf(word, isLast, term)
        if (tier < 0) continue
        const d = df.get(term) as number
        const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5))
        const s = tier + (idf * count * 2.2) / (count + 1.2 * (0.25 + (0.75 * docTerms[i].length) / avg))
        best = Math.max(best, s)
      }
      if (best < 0) return
      score += best
    }
    ranked.push({ id: doc.id, score, createdAt: doc.createdAt })
  })
  return ranked.sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
}

/** Asserts the engine returns exactly the reference's matches, ranked consistently with the reference's scores. */
export function check(t: Test, index: MemeSearchIndex, docs: Iterable<SearchDocument>, q: string | undefined, tags: string[]) {
  const expected = referenceSearch(docs, q, tags)
  const result = index.search({ q, tags, offset: 0, limit: expected.length + 5 })
  const label = JSON.stringify({ q, tags })
  if (result.total !== expected.length) return t.equal(result.total, expected.length, `total ${label}`)
  if (result.ids.length !== expected.length) return t.equal(result.ids.length, expected.length, `ids ${label}`)
  const byId = new Map<string, Ranked>(expected.map((r) => [r.id, r]))
  for (let i = 0; i < result.ids.length; i++) {
    const a = byId.get(result.ids[i])
    if (!a) return t.fail(`${result.ids[i]} is not a match of ${label}`)
    if (i === 0) continue
    const b = byId.get(result.ids[i - 1]) as Ranked
    // The engine sums word scores rarest word first; allow for float rounding between the two sums.
    const close = Math.abs(a.score - b.score) <= 1e-9 * Math.max(1, a.score)
    const ordered =
      a.score === b.score ? b.createdAt > a.createdAt || (b.createdAt === a.createdAt && b.id > a.id) : close || b.score > a.score
    if (!ordered) return t.fail(`rank ${i} out of order for ${label}`, { before: b, after: a })
  }
  t.pass(label)
}

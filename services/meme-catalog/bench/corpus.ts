/**
 * Deterministic meme-like corpus and query set for the search benchmark and the engine tests: captions of
 * 8-40 words drawn Zipf-wise from a synthetic vocabulary (some words accented), 1-5 tags, 1-3 word queries
 * with typos, cut last words and accent-stripped forms.
 */
import { createHash } from 'node:crypto'
import type { NewMeme } from '../src/memes/write-repository.ts'
import type { SearchDocument } from '../src/search/types.ts'

export interface CorpusOptions {
  documents: number
  vocabulary?: number
  accented?: number
  tags?: number
  seed?: number
}

export interface Corpus {
  documents: SearchDocument[]
  words: string[]
  tags: string[]
}

/** mulberry32: small, fast, seedable, good enough for test data. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'j',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'z',
  'br',
  'ch',
  'cl',
  'dr',
  'gr',
  'pl',
  'sh',
  'st',
  'th',
  'tr',
]
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ou', 'ea', 'ai', 'y']
const ACCENTS: Record<string, string[]> = {
  a: ['à', 'á', 'â', 'ä'],
  e: ['é', 'è', 'ê', 'ë'],
  i: ['í', 'î', 'ï'],
  o: ['ó', 'ô', 'ö'],
  u: ['ú', 'ù', 'ü'],
  n: ['ñ'],
  c: ['ç'],
}

/** Distinct pseudo-words of 2-12 letters; `accented` of them carry diacritics (distinct once folded too). */
export function generateWords(count: number, accented: number, random: () => number): string[] {
  const seen = new Set<string>()
  const words: string[] = []
  while (words.length < count) {
    const syllables = 1 + Math.floor(random() * random() * 4.5)
    let word = ''
    for (let s = 0; s < syllables; s++) {
      word += ONSETS[Math.floor(random() * ONSETS.length)] + VOWELS[Math.floor(random() * VOWELS.length)]
      if (random() < 0.3) word += ONSETS[Math.floor(random() * 17)]
    }
    if (word.length < 2 || word.length > 12 || seen.has(word)) continue
    seen.add(word)
    words.push(word)
  }
  // Accent some words in place: the folded form stays unique because the plain word was unique.
  const positions = shuffle([...words.keys()], random).slice(0, accented)
  for (const at of positions) {
    const chars = [...words[at]]
    const candidates = chars.flatMap((ch, i) => (ACCENTS[ch] ? [i] : []))
    if (candidates.length === 0) continue
    const i = candidates[Math.floor(random() * candidates.length)]
    const options = ACCENTS[chars[i]]
    chars[i] = options[Math.floor(random() * options.length)]
    words[at] = chars.join('')
  }
  return words
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[items[i], items[j]] = [items[j], items[i]]
  }
  return items
}

/** Samples ranks 0..n-1 with probability proportional to 1 / (rank + 1)^exponent. */
export function zipfSampler(n: number, exponent: number, random: () => number): () => number {
  const cdf = new Float64Array(n)
  let sum = 0
  for (let r = 0; r < n; r++) {
    sum += 1 / (r + 1) ** exponent
    cdf[r] = sum
  }
  return () => {
    const x = random() * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cdf[mid] < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

export function generateCorpus(options: CorpusOptions): Corpus {
  const { words, tags, documents } = streamCorpus(options)
  return { documents: [...documents], words, tags }
}

/** The corpus of generateCorpus with its documents made one at a time: a million need not sit in memory. */
export function streamCorpus(options: CorpusOptions): { words: string[]; tags: string[]; documents: Generator<SearchDocument> } {
  const random = createRandom(options.seed ?? 42)
  const words = generateWords(options.vocabulary ?? 5000, options.accented ?? 300, random)
  const tags = generateWords(options.tags ?? 300, 0, random).map((word, i) => (i % 7 === 0 ? `${word}-${words[i]}` : word))
  const pickWord = zipfSampler(words.length, 1, random)
  const pickTag = zipfSampler(tags.length, 0.8, random)
  const start = Date.UTC(2024, 0, 1)
  function* documents(): Generator<SearchDocument> {
    for (let i = 0; i < options.documents; i++) {
      const length = 8 + Math.floor(random() * random() * 33)
      const caption: string[] = []
      for (let w = 0; w < length; w++) {
        let word = words[pickWord()]
        if (w === 0 || random() < 0.05) word = word[0].toUpperCase() + word.slice(1)
        caption.push(random() < 0.08 ? `${word},` : word)
      }
      // The full stop joins the last word, so the join is the caption: one flat string, as the database hands
      // captions over (a caption concatenated after the join is a rope that the index's first read must copy).
      caption[length - 1] += '.'
      const docTags = new Set<string>()
      const tagCount = 1 + Math.floor(random() * 5)
      while (docTags.size < tagCount) docTags.add(tags[pickTag()])
      yield {
        id: createHash('sha256')
          .update(`meme-${options.seed ?? 42}-${i}`)
          .digest('hex'),
        caption: caption.join(' '),
        tags: [...docTags],
        // Whole seconds with random gaps, so some memes share a createdAt and the id breaks the tie.
        createdAt: start + (i + Math.floor(random() * 3)) * 1000,
      }
    }
  }
  return { words, tags, documents: documents() }
}

/** A corpus document as a stored meme (approved, without media): what the database side of the benches loads. */
export function corpusMeme(doc: SearchDocument): NewMeme {
  return {
    id: doc.id,
    status: 'approved',
    createdAt: new Date(doc.createdAt),
    byteSize: 48213,
    width: 800,
    height: 600,
    originalMime: 'image/png',
    originalName: 'meme.png',
    moderationScore: 3,
    moderationReason: 'safe',
    caption: doc.caption,
    tags: doc.tags,
  }
}

/** Groups items into arrays of `size` (the last may be shorter). */
export function* inBatches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = []
  for (const item of items) {
    batch.push(item)
    if (batch.length === size) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

const stripAccents = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '')
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

/** One edit (substitution, deletion or insertion) at a random position after the first letter. */
export function addTypo(word: string, random: () => number): string {
  const at = 1 + Math.floor(random() * (word.length - 1))
  const letter = LETTERS[Math.floor(random() * LETTERS.length)]
  const kind = Math.floor(random() * 3)
  if (kind === 0) return word.slice(0, at) + letter + word.slice(at + 1)
  if (kind === 1) return word.slice(0, at) + word.slice(at + 1)
  return word.slice(0, at) + letter + word.slice(at)
}

/**
 * Distinct queries of 1-3 words taken from real captions (so most have matches): a third with one typo in a
 * word of 5+ letters, a fifth with the last word cut to a 3-5 letter prefix, a quarter accent-stripped.
 */
export function generateQueries(corpus: Corpus, count: number, seed = 7): string[] {
  const random = createRandom(seed)
  const queries = new Set<string>()
  while (queries.size < count) {
    const doc = corpus.documents[Math.floor(random() * corpus.documents.length)]
    const terms = doc.caption.split(/[^\p{L}\p{N}]+/u).filter(Boolean)
    const size = 1 + Math.floor(random() * 3)
    const start = Math.floor(random() * Math.max(1, terms.length - size))
    const words = terms.slice(start, start + size).map((word) => word.toLowerCase())
    if (random() < 1 / 3) {
      const long = words.flatMap((word, i) => (word.length >= 5 ? [i] : []))
      if (long.length > 0) {
        const i = long[Math.floor(random() * long.length)]
        words[i] = addTypo(words[i], random)
      }
    }
    const last = words.length - 1
    if (random() < 0.2 && words[last].length > 5) words[last] = words[last].slice(0, 3 + Math.floor(random() * 3))
    let query = words.join(' ')
    if (random() < 0.25) query = stripAccents(query)
    if (random() < 0.1) query = query.toUpperCase()
    queries.add(query)
  }
  return [...queries]
}

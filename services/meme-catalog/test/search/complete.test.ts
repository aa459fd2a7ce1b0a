import { test } from 'tap'
import { addTypo, createRandom, generateCorpus } from '../../bench/corpus.ts'
import { COMPLETION_SCAN, splitLastWord } from '../../src/search/complete.ts'
import { createSearchIndex } from '../../src/search/engine.ts'
import type { Completion, SearchDocument } from '../../src/search/types.ts'
import { levenshtein, terms } from './engine-reference.ts'

const fold = (text: string) => text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '')

/** Memes per word and per tag, counted meme by meme with the reference's own folding. */
function referenceCounts(docs: SearchDocument[]) {
  const words = new Map<string, number>()
  const tags = new Map<string, number>()
  for (const doc of docs) {
    for (const term of new Set(terms(`${doc.caption} ${doc.tags.join(' ')}`))) words.set(term, (words.get(term) ?? 0) + 1)
    for (const tag of new Set(doc.tags.map((name) => name.toLowerCase()))) tags.set(tag, (tags.get(tag) ?? 0) + 1)
  }
  return { words, tags }
}

/** Every word and tag checked against the typed word, sorted whole: obviously right. */
function referenceComplete(counts: ReturnType<typeof referenceCounts>, typed: string, limit: number): Completion[] {
  const word = terms(typed)[0]
  if (word === undefined) return []
  const allowed = word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0
  const matches = (candidate: string) => candidate.startsWith(word) || (allowed > 0 && levenshtein(candidate, word) <= allowed)
  const words = [...counts.words].filter(([term]) => matches(term))
  const tags = [...counts.tags].filter(([tag]) => matches(fold(tag)))
  const all: Completion[] = [
    ...[...words].map(([value, count]) => ({ value, kind: 'word' as const, count })),
    ...[...tags].map(([value, count]) => ({ value, kind: 'tag' as const, count })),
  ]
  all.sort(
    (a, b) =>
      b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : a.kind === b.kind ? 0 : a.kind === 'word' ? -1 : 1),
  )
  return all.slice(0, limit)
}

// A small vocabulary: prefixes and typos meet many words; some words and tags are accented.
const corpus = generateCorpus({ documents: 1200, vocabulary: 400, accented: 60, tags: 40, seed: 5 })

test('completions equal the brute-force reference: values, kinds, exact counts and order', (t) => {
  const index = createSearchIndex()
  index.upsertMany(corpus.documents)
  const counts = referenceCounts(corpus.documents)
  const random = createRandom(3)
  const typed = new Set<string>(['a', 'b', 's', 'st', 'z', 'é', 'E'])
  while (typed.size < 1500) {
    const word = corpus.words[Math.floor(random() * corpus.words.length)] as string
    const tag = corpus.tags[Math.floor(random() * corpus.tags.length)] as string
    typed.add(word.slice(0, 1 + Math.floor(random() * word.length)))
    typed.add(addTypo(word, random))
    typed.add(word.toUpperCase())
    typed.add(tag.slice(0, 2 + Math.floor(random() * tag.length)).replace(/-.*/, ''))
  }
  let compared = 0
  for (const word of typed) {
    const expected = referenceComplete(counts, word, 10)
    const got = index.complete(word, 10)
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      t.same(got, expected, `completions of ${JSON.stringify(word)}`)
      return t.end()
    }
    compared += got.length
  }
  t.ok(compared > 2000, `${typed.size} words typed, ${compared} completions compared`)
  t.ok(corpus.words.length < COMPLETION_SCAN, 'the vocabulary is under the scan bound: the ranking must be exact')
  t.end()
})

test('completions follow upserts and removals: counts change, vanished words and tags are gone', (t) => {
  const index = createSearchIndex()
  const docs: SearchDocument[] = [
    { id: 'a', caption: 'Crème brûlée for the cat', tags: ['desserts'], createdAt: 1 },
    { id: 'b', caption: 'a creamy cat', tags: ['cats', 'desserts'], createdAt: 2 },
    { id: 'c', caption: 'caterpillar', tags: ['cats'], createdAt: 3 },
  ]
  for (const doc of docs) index.upsert(doc)
  t.same(index.complete('CRE', 10), [
    { value: 'creamy', kind: 'word', count: 1 },
    { value: 'creme', kind: 'word', count: 1 },
  ])
  t.same(index.complete('cat', 3), [
    { value: 'cat', kind: 'word', count: 2 },
    { value: 'cats', kind: 'word', count: 2 },
    { value: 'cats', kind: 'tag', count: 2 },
  ])
  t.same(
    index.complete('dessrts', 10),
    [
      { value: 'desserts', kind: 'word', count: 2 },
      { value: 'desserts', kind: 'tag', count: 2 },
    ],
    'a typo in a 7-letter word (as search allows)',
  )
  t.same(index.complete('dess', 10).length, 2, 'a prefix')
  t.same(index.complete('des', 10).length, 2, 'from one letter on, unlike a search prefix')
  t.same(index.complete('dessx', 10), [], 'a 5-letter word with one typo matches within distance only, not as prefix')

  index.remove('b')
  index.upsert({ id: 'c', caption: 'butterfly', tags: [], createdAt: 3 })
  t.same(index.complete('cat', 10), [{ value: 'cat', kind: 'word', count: 1 }], 'the tag cats is gone with its last meme')
  t.same(index.complete('creamy', 10), [], 'a removed word')
  t.same(index.complete('', 10), [])
  t.same(index.complete('x'.repeat(61), 10), [], 'a word longer than any completion')
  index.clear()
  t.same(index.complete('d', 10), [], 'cleared')
  t.end()
})

test('the last word being typed is split off as typed, in linear time', (t) => {
  t.same(splitLastWord('funny ca'), { before: 'funny ', word: 'ca' })
  t.same(splitLastWord('Crème Brû'), { before: 'Crème ', word: 'Brû' })
  t.same(splitLastWord('cats '), { before: 'cats ', word: '' }, 'a finished word is not completed')
  t.same(splitLastWord('tea-𝒳y'), { before: 'tea-', word: '𝒳y' }, 'a letter outside the BMP stays whole')
  t.same(splitLastWord(''), { before: '', word: '' })
  const long = `${'a'.repeat(100_000)}!`
  const started = process.cpuUsage()
  splitLastWord(long)
  const cpu = process.cpuUsage(started)
  t.ok(cpu.user + cpu.system < 1_000_000, 'a long run before a separator costs one pass')
  t.end()
})

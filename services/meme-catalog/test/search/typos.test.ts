import { test } from 'tap'
import { addTypo, createRandom, generateWords } from '../../bench/corpus.ts'
import { foldText, maxTypos } from '../../src/search/normalize.ts'
import { depthOf, TypoIndex } from '../../src/search/typos.ts'
import { levenshtein } from './engine-reference.ts'

/** What a walk of the whole vocabulary finds: every live term within 1..maxTypos(word) of the word. */
function bruteForce(terms: Map<number, string>, word: string): Map<number, number> {
  const found = new Map<number, number>()
  const allowed = maxTypos(word.length)
  if (allowed === 0) return found
  for (const [id, term] of terms) {
    const distance = levenshtein(word, term)
    if (distance > 0 && distance <= allowed) found.set(id, distance)
  }
  return found
}

function matched(index: TypoIndex, terms: Map<number, string>, word: string): Map<number, number> {
  const found = new Map<number, number>()
  index.match(
    word,
    maxTypos(word.length),
    (id) => terms.get(id) as string,
    (id, distance) => {
      if (found.has(id)) throw new Error(`${terms.get(id)} found twice for ${word}`)
      found.set(id, distance)
    },
  )
  return found
}

test('deletion depth: the largest distance a query word may be from a term of each length', async (t) => {
  // Words of 5-8 letters allow 1 (terms of 4-9 letters), 9+ allow 2 (terms of 7+).
  t.same(
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 30].map((length) => depthOf(length)),
    [0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2],
  )
})

test('finds exactly the terms a walk of the vocabulary finds, while terms come and go and ids are reused', async (t) => {
  const random = createRandom(17)
  // Short and long words, accented ones folded (non-ASCII letters), repeated letters (deletions that coincide).
  const vocabulary = generateWords(1500, 200, random).map(foldText)
  vocabulary.push('aaaaaaaaaa', 'aaaaaaaaab', 'abababababab', 'mississippi', 'missisippi', 'straße', 'straßen', 'страница')
  vocabulary.push('δοκιμή', 'δοκιμες', 'a', 'ab', 'abc', 'abcd', 'abcde', 'supercalifragilistic')
  const index = new TypoIndex()
  const live = new Map<number, string>()
  const freeIds: number[] = []
  let nextId = 0
  const add = (term: string) => {
    const id = freeIds.length > 0 ? (freeIds.pop() as number) : nextId++
    live.set(id, term)
    if (!index.add(term, id)) t.fail(`add ${term}`)
  }
  const words = () => {
    const list: string[] = []
    for (let i = 0; i < 300; i++) {
      const term = vocabulary[Math.floor(random() * vocabulary.length)]
      const typos = Math.floor(random() * 4)
      let word = term.length > 1 ? term : `${term}x`
      for (let k = 0; k < typos; k++) word = addTypo(word.length > 1 ? word : `${word}y`, random)
      list.push(word)
    }
    return list
  }
  let checked = 0
  const compare = (label: string) => {
    let same = 0
    const asked = words()
    for (const word of asked) {
      const want = bruteForce(live, word)
      const got = matched(index, live, word)
      if (got.size === want.size && [...want].every(([id, distance]) => got.get(id) === distance)) same++
      else t.same([...got].sort(), [...want].sort(), `${label}: ${word}`)
    }
    checked += asked.length
    t.equal(same, asked.length, label)
  }
  for (const term of new Set(vocabulary)) add(term)
  compare('whole vocabulary')
  // Drop a third (their ids are reused by the next terms), then add new near-misses of the terms left.
  for (const [id, term] of [...live]) {
    if (random() < 1 / 3) {
      index.delete(term, id)
      live.delete(id)
      freeIds.push(id)
    }
  }
  compare('a third dropped')
  const known = new Set(live.values())
  for (const term of [...live.values()].slice(0, 400)) {
    const near = addTypo(term.length > 1 ? term : `${term}z`, random)
    if (!known.has(near)) {
      known.add(near)
      add(near)
    }
  }
  compare('near-misses added into freed ids')
  for (const [id, term] of [...live]) {
    index.delete(term, id)
    live.delete(id)
  }
  t.equal(index.size, 0, 'every entry unlinked')
  compare('empty')
  t.ok(checked > 0)
})

test('add refuses a term past its entry limit and records nothing of it', async (t) => {
  const index = new TypoIndex(60)
  t.ok(index.add('abcdefgh', 0), '1 + 8 + 28 deletions')
  t.equal(index.size, 37)
  t.notOk(index.add('bcdefghi', 1), 'another 37 would pass 60')
  t.equal(index.size, 37)
  t.ok(index.add('abc', 2), 'a term no query word can reach by a typo takes no entry')
  const found: string[] = []
  const terms = ['abcdefgh', 'bcdefghi', 'abc']
  index.match(
    'abcdefgx',
    1,
    (id) => terms[id],
    (id) => found.push(terms[id]),
  )
  t.same(found, ['abcdefgh'])
})

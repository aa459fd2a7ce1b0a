import { test } from 'tap'
import { createRandom } from '../../bench/corpus.ts'
import { matchedRanges, withinDistance } from '../../src/search/highlight.ts'
import { parseQuery } from '../../src/search/normalize.ts'
import { levenshtein } from './engine-reference.ts'

const marked = (text: string, q: string) => matchedRanges(text, parseQuery(q)).map(({ start, end }) => text.slice(start, end))

test('matched words are ranges of the original text: case, accents, typos and the last-word prefix map back', (t) => {
  t.same(marked('Crème BRÛLÉE for breakfast', 'creme brulee'), ['Crème', 'BRÛLÉE'])
  t.same(marked('Cre\u0300me decomposed', 'creme'), ['Cre\u0300me'], 'a decomposed accent stays inside the range')
  t.same(marked('the breakfast club', 'brekfast'), ['breakfast'], 'one typo in an 8-letter word')
  t.same(marked('the breakfast club', 'brea'), ['breakfast'], 'the last word as a prefix')
  t.same(marked('the breakfast club', 'brea club'), ['club'], 'an earlier word is not a prefix')
  t.same(marked('the breakfast club', 'club brea'), ['breakfast', 'club'])
  t.same(marked('cat-coffee, cat!', 'cat'), ['cat', 'cat'], 'punctuation splits words as the index does')
  t.same(marked('İstanbul 𝒳-ray', 'istanbul'), ['İstanbul'], 'a capital that lowercases to two characters')
  t.same(marked('naïve', 'zebra'), [])
  const text = 'Crème brûlée'
  t.same(matchedRanges(text, parseQuery('brulee')), [{ start: 6, end: 12 }], 'UTF-16 offsets')
  t.end()
})

test('the banded distance check agrees with full Levenshtein', (t) => {
  const random = createRandom(9)
  const letters = 'abcde'
  const word = () => Array.from({ length: Math.floor(random() * 9) }, () => letters[Math.floor(random() * 5)]).join('')
  for (let i = 0; i < 5000; i++) {
    const a = word()
    const b = word()
    for (const d of [1, 2]) {
      if (withinDistance(a, b, d) !== levenshtein(a, b) <= d) {
        t.fail(`${a} ~ ${b} within ${d}`)
        return t.end()
      }
    }
  }
  t.pass('5000 random pairs at distances 1 and 2')
  t.end()
})

test('a long caption costs one pass', (t) => {
  const text = `${'x'.repeat(200_000)} ${'word '.repeat(20_000)}`
  const started = process.cpuUsage()
  t.equal(matchedRanges(text, parseQuery('wrd')).length, 0)
  const cpu = process.cpuUsage(started)
  t.ok(cpu.user + cpu.system < 2_000_000, `${(cpu.user + cpu.system) / 1000} ms`)
  t.end()
})

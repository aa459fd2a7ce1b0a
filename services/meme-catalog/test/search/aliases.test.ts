import { test } from 'tap'
import { createSearchIndex } from '../../src/search/engine.ts'
import type { SearchDocument } from '../../src/search/types.ts'

const hex = (n: number) => n.toString(16).padStart(64, '0')
const doc = (n: number, caption: string, tags: string[] = []): SearchDocument => ({
  id: hex(n),
  caption,
  tags,
  createdAt: n * 1000,
})

function catalog(thresholdFrom?: number) {
  const index = createSearchIndex({ thresholdFrom })
  index.upsert(doc(1, 'a sleepy animal', ['cats']))
  index.upsert(doc(2, 'kitty litter advert', ['ads']))
  index.upsert(doc(3, 'a dog', ['dogs', 'grumpy cat']))
  index.upsert(doc(4, 'nothing to see', ['cats', 'funny']))
  index.setAliases(
    new Map([
      ['kitty', 'cats'],
      ['kitten', 'cats'],
      ['grumpy kitty', 'grumpy cat'],
    ]),
  )
  return index
}

const ids = (index: ReturnType<typeof createSearchIndex>, q?: string, tags?: string[]) =>
  index.search({ q, tags, offset: 0, limit: 100 }).ids

for (const thresholdFrom of [undefined, 1]) {
  const path = thresholdFrom === undefined ? 'scored matches' : 'bitsets and thresholds'
  test(`a tag filter naming an alias selects its tag (${path})`, async (t) => {
    const index = catalog(thresholdFrom)
    t.same(ids(index, undefined, ['kitty']), ids(index, undefined, ['cats']))
    t.same(ids(index, undefined, ['kitty']), [hex(4), hex(1)])
    t.same(ids(index, undefined, ['KITTEN', 'funny']), [hex(4)], 'lowercased, ANDed with other filters')
    t.same(ids(index, undefined, ['kitty', 'cats']), [hex(4), hex(1)], 'an alias and its tag are one filter')
    t.same(ids(index, undefined, ['grumpy kitty']), [hex(3)], 'multi-word aliases')
    t.same(ids(index, undefined, ['kit']), [], 'filters stay exact: no prefix of an alias')
    t.equal(index.resolveTag('kitty'), 'cats')
    t.equal(index.resolveTag('dogs'), 'dogs')
  })

  test(`a query word naming an alias finds the tag's memes (${path})`, async (t) => {
    const index = catalog(thresholdFrom)
    t.same(ids(index, 'kitten').sort(), [hex(1), hex(4)].sort(), 'the alias alone')
    t.same(
      ids(index, 'kitty').sort(),
      [hex(1), hex(2), hex(3), hex(4)],
      'the aliases (a word of "grumpy kitty" like a word of the tag "grumpy cat") and the caption word',
    )
    t.same(ids(index, 'sleepy kitten'), [hex(1)], 'ANDed with other words')
    t.same(ids(index, 'kitt').sort(), [hex(1), hex(2), hex(3), hex(4)], 'the last word as a prefix of alias words')
    t.same(ids(index, 'kittem').sort(), [hex(1), hex(4)].sort(), 'and with the typo rule of its length')
    t.same(ids(index, 'ki'), [], 'no prefix under 3 letters, as for text')
    t.same(ids(index, 'kitty sleepy'), [hex(1)], 'an alias word that is not the last is exact (or a typo)')
    t.same(ids(index, 'grumpy kitty'), [hex(3)], 'a multi-word alias by its words')
    t.same(ids(index, 'kitty kitty', ['funny']), [hex(4)], 'with tag filters')
  })
}

test('setAliases replaces the aliases; an alias of a tag no meme carries finds nothing', async (t) => {
  const index = catalog()
  index.setAliases(new Map([['moggy', 'cats']]))
  t.same(ids(index, undefined, ['kitty']), [], 'the old alias is gone')
  t.same(ids(index, 'kitten'), [])
  t.same(ids(index, 'moggy').sort(), [hex(1), hex(4)].sort())
  index.setAliases(new Map([['ghost', 'unused tag']]))
  t.same(ids(index, 'ghost'), [])
  t.same(ids(index, undefined, ['ghost']), [])
  index.remove(hex(1))
  index.remove(hex(4))
  index.setAliases(new Map([['kitty', 'cats']]))
  t.same(ids(index, undefined, ['kitty']), [], 'the tag left the index with its last meme')
  t.same(ids(index, 'kitty'), [hex(2)])
})

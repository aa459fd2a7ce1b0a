import { type Test, test } from 'tap'
import { addTypo, createRandom, generateCorpus, generateQueries } from '../../bench/corpus.ts'
import { createSearchIndex } from '../../src/search/engine.ts'
import type { MemeSearchIndex, SearchDocument } from '../../src/search/types.ts'
import { type Ranked, referenceSearch } from './engine-reference.ts'

// A small vocabulary makes typo and prefix expansions collide with real terms often.
const corpus = generateCorpus({ documents: 1500, vocabulary: 400, accented: 60, tags: 25, seed: 11 })

/** Asserts the engine returns exactly the reference's matches, ranked consistently with the reference's scores. */
function check(t: Test, index: MemeSearchIndex, docs: Iterable<SearchDocument>, q: string | undefined, tags: string[]) {
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

test('generated queries match a brute-force reference', async (t) => {
  const index = createSearchIndex()
  for (const doc of corpus.documents) index.upsert(doc)
  const random = createRandom(5)
  const queries = generateQueries(corpus, 250, 3)
  // Extra shapes: random vocabulary words with typos, short words, bare prefixes of every length.
  for (let i = 0; i < 80; i++) {
    const word = corpus.words[Math.floor(random() * corpus.words.length)]
    queries.push(addTypo(word.length > 1 ? word : `${word}x`, random))
    queries.push(word.slice(0, 1 + Math.floor(random() * word.length)))
    queries.push(`${corpus.words[i]} ${word.slice(0, 3)}`)
  }
  for (const q of queries) {
    const tags = random() < 0.3 ? [corpus.tags[Math.floor(random() * 6)]] : []
    check(t, index, corpus.documents, q, tags)
  }
  check(t, index, corpus.documents, undefined, [corpus.tags[0], corpus.tags[1]])
  check(t, index, corpus.documents, undefined, [corpus.tags[2]])
})

test('stays correct under interleaved upserts and removes', async (t) => {
  const index = createSearchIndex()
  const live = new Map<string, SearchDocument>()
  const random = createRandom(9)
  const pool = corpus.documents.slice(0, 600)
  const queries = generateQueries(corpus, 40, 8)
  for (let step = 0; step < 3000; step++) {
    const doc = pool[Math.floor(random() * pool.length)]
    const roll = random()
    if (roll < 0.55) {
      // Sometimes with another document's caption and tags, and a new createdAt: the replacement must win.
      const other = pool[Math.floor(random() * pool.length)]
      const next = roll < 0.2 ? { ...doc, caption: other.caption, tags: other.tags, createdAt: other.createdAt + 1 } : doc
      index.upsert(next)
      live.set(doc.id, next)
    } else {
      index.remove(doc.id)
      live.delete(doc.id)
    }
    if (step % 150 === 149) {
      t.equal(index.size, live.size)
      for (const q of queries.slice(0, 10)) check(t, index, live.values(), q, [])
      check(t, index, live.values(), queries[(step / 150) | 0], [corpus.tags[0]])
      check(t, index, live.values(), undefined, [])
      check(t, index, live.values(), undefined, [corpus.tags[1]])
      const listed = index.search({ offset: 5, limit: 7 }).ids
      t.same(
        listed,
        referenceSearch(live.values(), undefined)
          .slice(5, 12)
          .map((r) => r.id),
        'list page',
      )
    }
  }
  for (const id of [...live.keys()]) index.remove(id)
  t.equal(index.size, 0)
  t.same(index.search({ offset: 0, limit: 5 }), { total: 0, ids: [] })
  t.same(index.search({ q: queries[0], offset: 0, limit: 5 }), { total: 0, ids: [] })
})

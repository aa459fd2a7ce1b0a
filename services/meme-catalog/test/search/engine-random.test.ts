import { type Test, test } from 'tap'
import { addTypo, createRandom, generateCorpus, generateQueries } from '../../bench/corpus.ts'
import { createSearchIndex } from '../../src/search/engine.ts'
import type { MemeSearchIndex, SearchDocument } from '../../src/search/types.ts'
import { check, type Ranked, referenceSearch } from './engine-reference.ts'

// A small vocabulary makes typo and prefix expansions collide with real terms often.
const corpus = generateCorpus({ documents: 1500, vocabulary: 400, accented: 60, tags: 25, seed: 11 })

/** Asserts a page of the engine holds the reference's scores at those ranks (a pruned better match would not). */
function checkPage(t: Test, index: MemeSearchIndex, docs: Iterable<SearchDocument>, q: string, tags: string[], offset: number) {
  const expected = referenceSearch(docs, q, tags)
  const result = index.search({ q, tags, offset, limit: 12 })
  const label = JSON.stringify({ q, tags, offset })
  if (result.total !== expected.length) return t.equal(result.total, expected.length, `total ${label}`)
  const page = expected.slice(offset, offset + 12)
  if (result.ids.length !== page.length) return t.equal(result.ids.length, page.length, `ids ${label}`)
  const byId = new Map<string, Ranked>(expected.map((r) => [r.id, r]))
  for (let i = 0; i < page.length; i++) {
    const got = byId.get(result.ids[i])
    if (!got) return t.fail(`${result.ids[i]} is not a match of ${label}`)
    if (Math.abs(got.score - page[i].score) > 1e-9 * Math.max(1, page[i].score))
      return t.fail(`rank ${offset + i} of ${label} scores ${got.score}, the reference ${page[i].score}`)
  }
  t.pass(`page ${label}`)
}

function sampleQueries(): string[] {
  const random = createRandom(5)
  const queries = generateQueries(corpus, 250, 3)
  // Extra shapes: random vocabulary words with typos, short words, bare prefixes of every length.
  for (let i = 0; i < 80; i++) {
    const word = corpus.words[Math.floor(random() * corpus.words.length)]
    queries.push(addTypo(word.length > 1 ? word : `${word}x`, random))
    queries.push(word.slice(0, 1 + Math.floor(random() * word.length)))
    queries.push(`${corpus.words[i]} ${word.slice(0, 3)}`)
  }
  // The commonest words, alone, together and as prefixes: most of the corpus matches.
  for (let i = 0; i < 6; i++)
    queries.push(corpus.words[i], `${corpus.words[i]} ${corpus.words[i + 1]}`, corpus.words[i].slice(0, 3))
  return queries
}

/**
 * The page `got` gives for each query equals `expected`'s, some queries with one of the commonest tags (tagShare)
 * and some past page 1 (up to `pages` pages in); one assertion for all when they agree. Returns how many agreed.
 */
function samePages(
  t: Test,
  expected: MemeSearchIndex,
  got: MemeSearchIndex,
  queries: readonly string[],
  { random = createRandom(1), tagShare = 0, pages = 1, label = 'every page identical', assert = true } = {},
): number {
  let same = 0
  for (const q of queries) {
    const tags = tagShare > 0 && random() < tagShare ? [corpus.tags[Math.floor(random() * 6)]] : []
    const query = { q, tags, offset: pages > 1 && random() < 0.3 ? 12 * Math.floor(random() * pages) : 0, limit: 12 }
    const want = expected.search(query)
    const have = got.search(query)
    if (JSON.stringify(have) === JSON.stringify(want)) same++
    else t.same(have, want, JSON.stringify(query))
  }
  if (assert) t.equal(same, queries.length, label)
  return same
}

// thresholdFrom 0 sends every query through the bitset count and the threshold top-k (the path of large indexes);
// a low impactFrom reads the common words' lists by impact, through copies kept whole or cut short (impactKept).
const IMPACTS_CUT = { thresholdFrom: 0, impactFrom: 40, impactKept: 4 }
const IMPACTS_WHOLE = { thresholdFrom: 0, impactFrom: 40, impactKept: 1e9 }
const nameOf = (options: { thresholdFrom?: number; impactKept?: number }) =>
  options.impactKept === undefined
    ? options.thresholdFrom === 0
      ? 'bitset count and threshold top-k'
      : 'default paths'
    : `threshold top-k, lists by impact, ${options.impactKept < 100 ? 'cut' : 'whole'} copies`

for (const options of [{}, { thresholdFrom: 0 }, IMPACTS_CUT, IMPACTS_WHOLE]) {
  const name = nameOf(options)
  test(`generated queries match a brute-force reference (${name})`, async (t) => {
    const index = createSearchIndex(options)
    for (const doc of corpus.documents) index.upsert(doc)
    const random = createRandom(5)
    for (const q of sampleQueries()) {
      const tags = random() < 0.3 ? [corpus.tags[Math.floor(random() * 6)]] : []
      check(t, index, corpus.documents, q, tags)
      checkPage(t, index, corpus.documents, q, tags, random() < 0.3 ? 12 * Math.floor(random() * 5) : 0)
    }
    check(t, index, corpus.documents, undefined, [corpus.tags[0], corpus.tags[1]])
    check(t, index, corpus.documents, undefined, [corpus.tags[2]])
  })
}

for (const options of [{ thresholdFrom: 0 }, IMPACTS_CUT, IMPACTS_WHOLE])
  test(`the threshold top-k returns exactly the pages of full scoring (${nameOf(options)})`, async (t) => {
    const full = createSearchIndex({ thresholdFrom: Number.POSITIVE_INFINITY })
    const threshold = createSearchIndex(options)
    for (const doc of corpus.documents) {
      full.upsert(doc)
      threshold.upsert(doc)
    }
    samePages(t, full, threshold, sampleQueries(), { random: createRandom(13), tagShare: 0.2, pages: 8 })
  })

for (const options of [{}, { thresholdFrom: 0 }, IMPACTS_CUT, IMPACTS_WHOLE])
  test(`stays correct under interleaved upserts and removes (${nameOf(options)})`, async (t) => {
    const index = createSearchIndex(options)
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

for (const options of [IMPACTS_CUT, IMPACTS_WHOLE])
  test(`impact copies stay exact while memes are appended, removed and replaced between queries (${nameOf(options)})`, async (t) => {
    const full = createSearchIndex({ thresholdFrom: Number.POSITIVE_INFINITY })
    const impacts = createSearchIndex(options)
    const both = (change: (index: MemeSearchIndex) => void) => {
      change(full)
      change(impacts)
    }
    const queries = sampleQueries().filter((_, i) => i % 4 === 0)
    let same = 0
    let asked = 0
    const compare = () => {
      same += samePages(t, full, impacts, queries, { assert: false })
      asked += queries.length
    }
    const docs = corpus.documents
    both((index) => index.upsertMany(docs.slice(0, 1000)))
    compare()
    // New memes take new slots: appended to the lists, read beside the copies built by the queries above.
    for (let i = 1000; i < 1300; i++) {
      both((index) => index.upsert(docs[i]))
      if (i % 25 === 0) compare()
    }
    // Removals, then memes taking the freed slots and edited captions: the copies must be dropped.
    for (let i = 0; i < 200; i += 7) both((index) => index.remove(docs[i].id))
    compare()
    for (let i = 1300; i < 1400; i++) both((index) => index.upsert(docs[i]))
    compare()
    for (let i = 10; i < 60; i += 5) both((index) => index.upsert({ ...docs[i], caption: docs[i + 600].caption }))
    compare()
    t.equal(same, asked, 'every page identical')
  })

test('upsertMany builds the index upsert builds, with repeated and already indexed ids', async (t) => {
  const random = createRandom(21)
  const docs = corpus.documents
  // A second version of some documents: repeated within a batch, or replacing one indexed by an earlier batch.
  const edited = (i: number) => ({ ...docs[i], caption: docs[(i * 7) % docs.length].caption, createdAt: docs[i].createdAt + 1 })
  const batches = [
    [...docs.slice(0, 700), edited(3), edited(10)],
    [edited(20), ...docs.slice(700), edited(800), docs[5]],
  ]
  for (const options of [{}, { thresholdFrom: 0 }]) {
    const one = createSearchIndex(options)
    const many = createSearchIndex(options)
    for (const batch of batches) {
      for (const doc of batch) one.upsert(doc)
      many.upsertMany(batch)
    }
    // Then the same changes through both paths: the batch-built lists must stay removable and extendable.
    for (const doc of docs.slice(100, 160)) {
      one.remove(doc.id)
      many.remove(doc.id)
    }
    one.upsertMany(docs.slice(100, 130))
    many.upsertMany(docs.slice(100, 130))
    for (const doc of docs.slice(130, 140)) {
      one.upsert(doc)
      many.upsert(doc)
    }
    t.equal(many.size, one.size, 'size')
    samePages(t, one, many, sampleQueries(), {
      random,
      tagShare: 0.3,
      pages: 5,
      label: `every page identical (${JSON.stringify(options)})`,
    })
    t.same(
      many.search({ tags: [corpus.tags[0]], offset: 3, limit: 9 }),
      one.search({ tags: [corpus.tags[0]], offset: 3, limit: 9 }),
    )
  }
  const live = new Map(docs.map((doc) => [doc.id, doc]))
  for (const batch of batches) for (const doc of batch) live.set(doc.id, doc)
  const index = createSearchIndex()
  for (const batch of batches) index.upsertMany(batch)
  for (const q of sampleQueries().slice(0, 60)) check(t, index, live.values(), q, [])
})

test('upsertMany into an index already queried builds what upsert builds (its lists carry bitsets)', async (t) => {
  const docs = corpus.documents
  const queries = sampleQueries()
  for (const options of [{ thresholdFrom: 0 }, IMPACTS_CUT]) {
    const one = createSearchIndex(options)
    const many = createSearchIndex(options)
    for (const doc of docs.slice(0, 800)) one.upsert(doc)
    many.upsertMany(docs.slice(0, 800))
    samePages(t, one, many, queries, { label: `first batch (${nameOf(options)})` })
    // Those queries gave the common words' lists bitsets: the next batch appends to them, past their end.
    for (const doc of docs.slice(800)) one.upsert(doc)
    many.upsertMany(docs.slice(800))
    samePages(t, one, many, queries, { label: `second batch (${nameOf(options)})` })
    for (const q of queries.slice(0, 40)) check(t, many, docs, q, [])
  }
})

test('upsertMany of an array larger than its sizing sample builds the index upsert builds', async (t) => {
  const large = generateCorpus({ documents: 12_000, vocabulary: 800, accented: 40, tags: 30, seed: 4 })
  const one = createSearchIndex()
  for (const doc of large.documents) one.upsert(doc)
  const many = createSearchIndex()
  many.upsertMany(large.documents)
  many.upsertMany(large.documents.slice(0, 9000))
  t.equal(many.size, one.size)
  samePages(t, one, many, generateQueries(large, 120, 5))
})

test('remembered query-word expansions follow the terms, tags and aliases that come and go between queries', async (t) => {
  const random = createRandom(31)
  const base = corpus.documents.slice(0, 500)
  const targets = corpus.words.filter((word) => /^[a-z]{6,}$/.test(word)).slice(0, 12)
  t.equal(targets.length, 12)
  // Each target as a word, a typo, a prefix and after the commonest word: exact, typo and prefix expansions.
  const queries = targets.flatMap((word) => [word, addTypo(word, random), word.slice(0, 4), `${corpus.words[0]} ${word}`])
  // New tags named by words already indexed (no new term comes with them), for aliases of the first targets.
  const newTags = targets.slice(0, 6).map((_, i) => corpus.words[1 + i])
  const tagged: SearchDocument[] = newTags.map((tag, i) => ({
    id: `tagged-${i}`,
    caption: corpus.words[0],
    tags: [tag],
    createdAt: Date.UTC(2025, 0, 1) + i,
  }))
  // New near-misses of each target (a typo, a longer word it starts, two edits), under a tag already indexed.
  const nearMisses: SearchDocument[] = targets.map((word, i) => ({
    id: `near-miss-${i}`,
    caption: `${addTypo(word, random)} ${word}ish ${addTypo(addTypo(word, random), random)}`,
    tags: [corpus.tags[0]],
    createdAt: Date.UTC(2025, 1, 1) + i,
  }))
  const index = createSearchIndex()
  index.upsertMany(base)
  const live = new Map(base.map((doc) => [doc.id, doc]))
  let aliases = new Map<string, string>()
  // The same queries on the remembering index and on one built now, which has answered nothing yet.
  const compare = (label: string) => {
    const fresh = createSearchIndex()
    fresh.upsertMany([...live.values()])
    fresh.setAliases(aliases)
    samePages(t, fresh, index, queries, { label })
    if (aliases.size === 0) for (const q of queries) check(t, index, live.values(), q, [])
  }
  const upsert = (docs: SearchDocument[]) => {
    for (const doc of docs) {
      index.upsert(doc)
      live.set(doc.id, doc)
    }
  }
  compare('before any change')
  // Aliases of tags no meme carries yet: their words match nothing until the tags arrive.
  aliases = new Map(targets.slice(0, 6).map((word, i) => [word, newTags[i]]))
  index.setAliases(aliases)
  compare('aliases of tags not carried yet')
  upsert(tagged)
  compare('the aliased tags arrive, no new term')
  upsert(nearMisses)
  compare('new terms, no new tag')
  aliases = new Map()
  index.setAliases(aliases)
  compare('aliases dropped')
  for (const doc of nearMisses.slice(0, 6)) {
    index.remove(doc.id)
    live.delete(doc.id)
  }
  compare('the last memes of some terms removed')
  index.upsertMany(nearMisses.slice(0, 3))
  for (const doc of nearMisses.slice(0, 3)) live.set(doc.id, doc)
  compare('terms back through upsertMany')
})

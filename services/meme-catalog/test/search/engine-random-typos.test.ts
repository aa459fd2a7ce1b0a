import { test } from 'tap'
import { addTypo, createRandom, generateCorpus } from '../../bench/corpus.ts'
import { createSearchIndex } from '../../src/search/engine.ts'
import type { SearchDocument } from '../../src/search/types.ts'
import { check } from './engine-reference.ts'

// A small vocabulary of long words: one- and two-letter typos meet other terms often.
const corpus = generateCorpus({ documents: 600, vocabulary: 300, accented: 40, tags: 12, seed: 23 })
const long = corpus.words.filter((word) => word.length >= 5)

/** Typo queries near the given words: one or two edits, alone or after a common word, some with a tag. */
function typoQueries(words: readonly string[], random: () => number): { q: string; tags: string[] }[] {
  return words.map((word, i) => {
    let q = addTypo(word, random)
    if (word.length >= 9 && random() < 0.6) q = addTypo(q, random)
    if (i % 3 === 1) q = `${corpus.words[i % 4]} ${q}`
    return { q, tags: i % 5 === 2 ? [corpus.tags[0]] : [] }
  })
}

// The default index builds its typo index on the first typo query; a limit just above this vocabulary's 3,828
// entries makes it give up when the new words come (the tree walk takes over); a limit of 0 never builds it.
for (const typoEntries of [undefined, 4000, 0]) {
  test(`typo expansions follow terms added and dropped after the first query (typo index limit ${typoEntries ?? 'default'})`, async (t) => {
    const random = createRandom(41)
    const index = createSearchIndex({ typoEntries })
    const live = new Map<string, SearchDocument>()
    const upsert = (doc: SearchDocument) => {
      index.upsert(doc)
      live.set(doc.id, doc)
    }
    const remove = (id: string) => {
      index.remove(id)
      live.delete(id)
    }
    index.upsertMany(corpus.documents)
    for (const doc of corpus.documents) live.set(doc.id, doc)
    const ask = (words: readonly string[]) => {
      for (const { q, tags } of typoQueries(words, random)) check(t, index, live.values(), q, tags)
    }
    ask(long.slice(0, 40))
    // New words near existing ones and near each other, each in memes of its own (their ids are fresh).
    const fresh = long
      .slice(0, 60)
      .map((word, i) => (i % 2 ? `${word}${word.slice(0, 3)}` : addTypo(addTypo(word, random), random)))
    const freshDocs = fresh.map((word, i) => ({
      id: `fresh-${i}`,
      caption: `${word} ${fresh[(i + 1) % fresh.length]} ${corpus.words[i % 7]}`,
      tags: [corpus.tags[i % 3]],
      createdAt: Date.UTC(2026, 0, 1) + i,
    }))
    for (const doc of freshDocs.slice(0, 40)) upsert(doc)
    ask([...fresh.slice(0, 40), ...long.slice(0, 20)])
    // Every meme of some rare words goes: those terms are dropped and their ids freed for the words added next.
    const rare = corpus.words.slice(-40)
    for (const doc of [...live.values()]) if (rare.some((word) => doc.caption.toLowerCase().includes(word))) remove(doc.id)
    ask(rare.filter((word) => word.length >= 5))
    for (const doc of freshDocs.slice(40)) upsert(doc)
    ask([...fresh.slice(40), ...rare.filter((word) => word.length >= 5)])
    // Fresh memes replaced by other captions, then gone: their words come and go again.
    for (const doc of freshDocs.slice(0, 20)) upsert({ ...doc, caption: corpus.documents[Number(doc.id.slice(6))].caption })
    ask(fresh.slice(0, 30))
    for (const doc of freshDocs) remove(doc.id)
    ask([...fresh, ...long.slice(40, 60)])
    index.upsertMany(freshDocs.slice(10, 30))
    for (const doc of freshDocs.slice(10, 30)) live.set(doc.id, doc)
    ask(fresh.slice(0, 40))
  })
}

test('an index cleared and loaded again expands typos from its new vocabulary', async (t) => {
  const random = createRandom(43)
  const index = createSearchIndex()
  index.upsertMany(corpus.documents.slice(0, 300))
  for (const { q, tags } of typoQueries(long.slice(0, 20), random)) check(t, index, corpus.documents.slice(0, 300), q, tags)
  index.clear()
  const other = generateCorpus({ documents: 300, vocabulary: 200, tags: 5, seed: 24 })
  index.upsertMany(other.documents)
  const words = [...long.slice(0, 20), ...other.words.filter((word) => word.length >= 5).slice(0, 20)]
  for (const { q, tags } of typoQueries(words, random)) check(t, index, other.documents, q, tags)
})

import { test } from 'tap'
import { corpusMeme, generateQueries, inBatches, streamCorpus } from '../../bench/corpus.ts'
import { type MemeRow, toMeme } from '../../src/memes/repository.ts'
import type { NewMeme } from '../../src/memes/write-repository.ts'
import { ReadModel } from '../../src/search/read-model.ts'
import { createReadModelReplica } from '../../src/search/replica.ts'
import { build } from '../helper.ts'
import { ready } from '../memes/fixtures.ts'

const DOCUMENTS = 3000
// Small batches so the build streams many of them (3000 public memes / 250 = 12 batches), and COPY segments of
// 700 memes so it also resumes from a last id several times, on either database.
const BATCH = 250
const SEGMENT = 700

/** The single-query load the streamed build replaced: every public meme with its tags in one result. */
async function loadAtOnce(app: Awaited<ReturnType<typeof build>>): Promise<ReadModel> {
  const { rows } = await app.db.query<MemeRow>(
    `SELECT m.id, m.created_at, m.status, m.byte_size, m.width, m.height, m.mime, m.original_mime, m.original_name,
       m.moderation_score, m.moderation_reason, m.view_count, m.download_count, m.demo, m.caption,
       coalesce((SELECT array_agg(t.tag ORDER BY t.tag) FROM meme_tags t WHERE t.meme_id = m.id), '{}') AS tags
     FROM memes m WHERE m.status = 'approved' AND m.deleted_at IS NULL`,
  )
  return new ReadModel(rows.map(toMeme))
}

test('the read model streamed in batches answers exactly as one loaded at once', async (t) => {
  const app = await build(t)
  await ready(app)
  const corpus = streamCorpus({ documents: DOCUMENTS, seed: 11 })
  const documents = [...corpus.documents]
  const memes: NewMeme[] = documents.map(corpusMeme)
  // Rows the build must leave out or carry unchanged: not public, no tags, text COPY has to escape.
  const hex = (n: number) => n.toString(16).padStart(64, 'f')
  memes.push(
    { ...corpusMeme(documents[0]), id: hex(1), status: 'pending' },
    { ...corpusMeme(documents[1]), id: hex(2), status: 'rejected' },
    { ...corpusMeme(documents[2]), id: hex(3), deletedAt: new Date() },
    { ...corpusMeme(documents[3]), id: hex(4), tags: [] },
    { ...corpusMeme(documents[4]), id: hex(5), caption: 'tab\there new\nline back\\slash \\N "quoted" é' },
  )
  t.equal(await app.memeUseCases.bulkLoad(inBatches(memes, 700)), memes.length, 'every meme stored through COPY')
  // Stamped by the database clock (microseconds): the batch read must truncate to milliseconds as a Date does.
  await app.memeUseCases.insert([{ ...corpusMeme(documents[5]), id: hex(6), createdAt: undefined }])

  const replica = await createReadModelReplica(app.db, app.log, { buildBatch: BATCH, segment: SEGMENT })
  t.teardown(() => replica.close())
  t.ok(await replica.whenReady(30_000), 'the streamed build finished')
  const streamed = replica.current as ReadModel
  // Ids stream in id order, so both listing orders had their whole load to sort: the build did it, not a reader.
  t.equal(streamed.settle(), false, 'the build left both listing orders sorted')
  const reference = await loadAtOnce(app)

  t.equal(reference.size, DOCUMENTS + 3, 'reference: the corpus plus the untagged, the escaped and the clock-stamped meme')
  t.equal(streamed.size, reference.size)
  t.equal(streamed.get(hex(1)), undefined, 'pending left out')
  t.equal(streamed.get(hex(3)), undefined, 'deleted left out')
  t.same(streamed.get(hex(4))?.tags, [])
  t.equal(streamed.get(hex(5))?.caption, 'tab\there new\nline back\\slash \\N "quoted" é', 'COPY escapes round-trip')
  t.same(streamed.get(documents[7].id)?.tags, [...documents[7].tags].sort(), 'tags arrive sorted, as the reference reads them')

  t.same(streamed.get(hex(6)), reference.get(hex(6)), 'a microsecond timestamp reads the same both ways')
  let differing = 0
  for (const doc of documents) if (JSON.stringify(streamed.get(doc.id)) !== JSON.stringify(reference.get(doc.id))) differing++
  t.equal(differing, 0, 'every record identical')

  const pageSize = 48
  const pages = Math.ceil(reference.size / pageSize)
  let pagesDiffering = 0
  for (let page = 1; page <= pages + 1; page++) {
    const request = { tags: [], page, pageSize }
    if (JSON.stringify(streamed.list(request)) !== JSON.stringify(reference.list(request))) pagesDiffering++
  }
  t.equal(pagesDiffering, 0, `all ${pages} newest-first pages (and one past the end) identical`)

  const queries = generateQueries({ ...corpus, documents }, 300, 5)
  let answersDiffering = 0
  let matched = 0
  for (const [i, q] of queries.entries()) {
    const tags = i % 3 === 0 ? [documents[i].tags[0]] : []
    for (const request of [
      { q, tags: [], page: 1, pageSize: 24 },
      { q, tags, page: 2, pageSize: 12 },
      { tags, page: 3, pageSize: 24 },
    ]) {
      const a = streamed.list(request)
      const b = reference.list(request)
      if (a.total > 0) matched++
      if (JSON.stringify(a) !== JSON.stringify(b)) answersDiffering++
    }
  }
  t.ok(matched > 300, `the comparison covers real matches (${matched} non-empty answers)`)
  t.equal(answersDiffering, 0, 'every search and tag answer identical')
})

test('a bulk load with an id already stored stores nothing', async (t) => {
  const app = await build(t)
  await ready(app)
  const memes = [...streamCorpus({ documents: 50, seed: 3 }).documents].map(corpusMeme)
  t.equal(await app.memeUseCases.bulkLoad([memes.slice(0, 10)]), 10)
  await t.rejects(app.memeUseCases.bulkLoad([...inBatches(memes.slice(10), 20), memes.slice(0, 1)]))
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM memes')
  t.equal(rows[0].n, 10, 'the failed load left no row')
  t.equal(app.readModel.current?.size, 10, 'the read model reloaded after the first load')
})

import { test } from 'tap'
import { corpusMeme, inBatches, streamCorpus } from '../../bench/corpus.ts'
import type { SearchDocument } from '../../src/search/types.ts'
import { build } from '../helper.ts'
import { addMeme, ready } from './fixtures.ts'

const DOCUMENTS = 2500
const PAGE_SIZE = 24

/** The spec's order without q: newest first; equal createdAt (the corpus has many) broken by id, descending. */
const newestFirst = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

test('every page without q, the deep ones included, equals the reference ordering', async (t) => {
  // Every page of the catalog is requested: the per-IP read budget is not under test here.
  const app = await build(t, { env: { READ_RATE_LIMIT: '100000' } })
  await ready(app)
  const documents: SearchDocument[] = [...streamCorpus({ documents: DOCUMENTS, seed: 21 }).documents]
  await app.memeUseCases.bulkLoad(inBatches(documents.map(corpusMeme), 1000))
  const reference = documents.map((d) => ({ id: d.id, createdAt: d.createdAt })).sort(newestFirst)
  t.ok(
    reference.some((d, i) => i > 0 && d.createdAt === reference[i - 1].createdAt),
    'the corpus has equal createdAt values, so the id tie-break is exercised',
  )

  const totalPages = Math.ceil(DOCUMENTS / PAGE_SIZE)
  const wrong: number[] = []
  for (let page = 1; page <= totalPages; page++) {
    const res = await app.inject(`/api/memes?page=${page}&pageSize=${PAGE_SIZE}`)
    const body = res.json()
    const expected = reference.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((d) => d.id)
    const ok =
      res.statusCode === 200 &&
      body.page === page &&
      body.pageSize === PAGE_SIZE &&
      body.total === DOCUMENTS &&
      body.totalPages === totalPages &&
      JSON.stringify(body.memes.map((m: { id: string }) => m.id)) === JSON.stringify(expected)
    if (!ok) wrong.push(page)
  }
  t.same(wrong, [], `all ${totalPages} pages match`)

  const beyond = (await app.inject(`/api/memes?page=${totalPages + 1000}&pageSize=${PAGE_SIZE}`)).json()
  t.equal(beyond.page, totalPages, 'a page past the end is the last page')
  t.same(
    beyond.memes.map((m: { id: string }) => m.id),
    reference.slice((totalPages - 1) * PAGE_SIZE).map((d) => d.id),
  )
  t.equal((await app.inject('/api/memes?pageSize=49')).statusCode, 400, 'pageSize above 48 refused')

  // The database answers the same pages while a read model loads (the route's fallback).
  for (const page of [1, 2, 57, totalPages]) {
    const found = await app.memes.listPublic({ tags: [], offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE })
    t.equal(found.total, DOCUMENTS)
    t.same(
      found.memes.map((m) => m.id),
      reference.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((d) => d.id),
      `database page ${page}`,
    )
  }

  // A meme older than all lands on the very last position; a newer one shifts every page by one.
  const oldest = await addMeme(app, { ageMinutes: 60 * 24 * 365 * 10 })
  const newest = await addMeme(app)
  const pages = Math.ceil((DOCUMENTS + 2) / PAGE_SIZE)
  const last = (await app.inject(`/api/memes?page=${pages}&pageSize=${PAGE_SIZE}`)).json()
  t.equal(last.memes.at(-1).id, oldest)
  t.equal((await app.inject(`/api/memes?page=1&pageSize=${PAGE_SIZE}`)).json().memes[0].id, newest)
  const deep = (await app.inject(`/api/memes?page=60&pageSize=${PAGE_SIZE}`)).json()
  t.same(
    deep.memes.map((m: { id: string }) => m.id),
    reference.slice(59 * PAGE_SIZE - 1, 60 * PAGE_SIZE - 1).map((d) => d.id),
    'deep page after a change',
  )
})

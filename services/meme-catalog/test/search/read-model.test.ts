import { test } from 'tap'
import type { MemeT } from '../../src/memes/schemas.ts'
import { ReadModel } from '../../src/search/read-model.ts'

const hexId = (n: number) => n.toString(16).padStart(64, '0')

function meme(n: number): MemeT {
  const id = hexId(n)
  return {
    id,
    createdAt: new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString(),
    byteSize: 1000 + n,
    width: 640,
    height: 480,
    mime: 'image/webp',
    originalMime: n % 2 ? 'image/png' : 'image/jpeg',
    status: 'approved',
    moderationScore: n % 100,
    moderationReason: 'Neutral 97%',
    viewCount: n,
    downloadCount: 0,
    originalName: `upload-${n % 7}.png`,
    url: `/media/${id}`,
    downloadUrl: `/media/${id}?download=1`,
    demo: false,
    caption: `caption number ${n}`,
    tags: n % 3 ? ['cats', `t${n % 5}`] : [],
  }
}

test('records come back exactly as stored, and pages serialize them in the schema order', async (t) => {
  const memes = Array.from({ length: 50 }, (_, i) => meme(i))
  const records = memes.map((m) => ({ ...m, createdAt: Date.parse(m.createdAt) }))
  const model = await ReadModel.build([records.slice(0, 20), records.slice(20)], 7)
  t.equal(model.size, 50)
  for (const m of memes) t.same(model.get(m.id), m)
  const page = model.list({ tags: [], page: 1, pageSize: 10 })
  const newest = memes.slice(40).reverse()
  t.equal(page.memesJson, JSON.stringify(newest), 'byte for byte what serializing the records gives')
})

test('the per-meme JSON cache stays bounded and never serves a stale record', async (t) => {
  const count = 45_000
  const model = new ReadModel(Array.from({ length: count }, (_, i) => meme(i)))
  const pageSize = 48
  // Walk every page (more records than the cache holds), then page 1 again after a counter change.
  for (let page = 1; page <= Math.ceil(count / pageSize); page++) model.list({ tags: [], page, pageSize })
  const newest = meme(count - 1)
  model.setCounts({ id: newest.id, view_count: 777, download_count: 5, trending: 3 })
  const first = JSON.parse(model.list({ tags: [], page: 1, pageSize: 2 }).memesJson)
  t.same(first[0], { ...newest, viewCount: 777, downloadCount: 5 })
  t.same(first[1], meme(count - 2), 'an entry evicted from the cache is serialized again, unchanged')
  const withJson = (model as unknown as { json: Map<string, string> }).json.size
  t.ok(withJson <= 20_000, `at most 20,000 records hold JSON (${withJson})`)
  t.ok(withJson > 0)
})

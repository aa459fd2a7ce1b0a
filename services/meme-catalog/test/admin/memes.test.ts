import { test } from 'tap'
import { build } from '../helper.ts'
import { addTags, insertMeme, plainImage } from '../support/memes.ts'

const TOKEN = 'admin-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }
type App = Awaited<ReturnType<typeof build>>

async function setup(t: Parameters<typeof build>[0]) {
  // CAPTION_CONCURRENCY=0: recaption jobs stay queued where the test can see them.
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' } })
  const base = Date.parse('2026-01-01T00:00:00Z')
  const at = (minutes: number) => new Date(base + minutes * 60_000)
  const approved = await insertMeme(app, await plainImage(10), {
    status: 'approved',
    caption: 'Lazy sunday brunch',
    tags: ['food'],
    createdAt: at(1),
  })
  const pending = await insertMeme(app, await plainImage(11), {
    status: 'pending',
    caption: 'Suspicious penguin',
    phash: '0f0f0f0f0f0f0f0f',
    nearDuplicateOf: [approved],
    createdAt: at(2),
  })
  const rejected = await insertMeme(app, await plainImage(12), { status: 'rejected', createdAt: at(3) })
  const pending2 = await insertMeme(app, await plainImage(13), { status: 'pending', createdAt: at(4) })
  return { app, approved, pending, rejected, pending2 }
}

const admin = (app: App, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) })

const publicStatus = async (app: App, id: string) => (await app.inject({ url: `/api/memes/${id}` })).statusCode

async function auditOf(app: App, memeId: string) {
  const { rows } = await app.db.query<{ actor: string; action: string; detail: Record<string, unknown> }>(
    'SELECT actor, action, detail FROM admin_audit WHERE meme_id = $1 ORDER BY id',
    [memeId],
  )
  return rows
}

test('GET /api/admin/memes lists full records by status, newest first, paged', async (t) => {
  const { app, approved, pending, rejected, pending2 } = await setup(t)
  const all = await admin(app, 'GET', '/api/admin/memes')
  t.equal(all.statusCode, 200)
  t.equal(all.headers['cache-control'], 'no-store')
  t.match(all.json(), { page: 1, pageSize: 24, total: 4, totalPages: 1 })
  t.same(
    all.json().memes.map((m: { id: string }) => m.id),
    [pending2, rejected, pending, approved],
  )

  const pend = (await admin(app, 'GET', '/api/admin/memes?status=pending')).json()
  t.same(
    pend.memes.map((m: { id: string }) => m.id),
    [pending2, pending],
  )
  t.match(pend.memes[1], {
    id: pending,
    status: 'pending',
    caption: 'Suspicious penguin',
    phash: '0f0f0f0f0f0f0f0f',
    nearDuplicateOf: [approved],
    url: `/media/${pending}`,
    adminMediaUrl: `/api/admin/memes/${pending}/media`,
    moderationScore: 3,
    captionJob: null,
  })
  t.type(pend.memes[1].updatedAt, 'string')
  const rej = (await admin(app, 'GET', '/api/admin/memes?status=rejected')).json()
  t.same(
    rej.memes.map((m: { id: string; status: string }) => [m.id, m.status]),
    [[rejected, 'rejected']],
  )

  const page2 = (await admin(app, 'GET', '/api/admin/memes?pageSize=3&page=2')).json()
  t.match(page2, { page: 2, pageSize: 3, total: 4, totalPages: 2 })
  t.same(
    page2.memes.map((m: { id: string }) => m.id),
    [approved],
  )
  t.equal((await admin(app, 'GET', '/api/admin/memes?pageSize=3&page=99')).json().page, 2, 'a page past the end is clamped')
  const empty = (await admin(app, 'GET', '/api/admin/memes?status=approved&page=5')).json()
  t.match(empty, { page: 1, total: 1 })

  for (const query of ['status=deleted', 'page=0', 'pageSize=0', 'pageSize=101', 'page=abc', 'other=1']) {
    const res = await admin(app, 'GET', `/api/admin/memes?${query}`)
    t.equal(res.statusCode, 400, query)
    t.type(res.json().error, 'string')
  }
})

test('approve and reject move a meme and reach the public read side at once', async (t) => {
  const { app, approved, pending } = await setup(t)
  t.equal(await publicStatus(app, pending), 404, 'pending is not public')
  const res = await admin(app, 'POST', `/api/admin/memes/${pending}/approve`)
  t.equal(res.statusCode, 200)
  t.match(res.json().meme, { id: pending, status: 'approved' })
  t.equal(await publicStatus(app, pending), 200, 'approved is public right away')
  const search = (await app.inject({ url: '/api/memes?q=penguin' })).json()
  t.same(
    search.memes.map((m: { id: string }) => m.id),
    [pending],
    'and findable',
  )
  const again = await admin(app, 'POST', `/api/admin/memes/${pending}/approve`)
  t.equal(again.statusCode, 200, 'approving again changes nothing')

  const rej = await admin(app, 'POST', `/api/admin/memes/${approved}/reject`)
  t.equal(rej.statusCode, 200)
  t.equal(rej.json().meme.status, 'rejected')
  t.equal(await publicStatus(app, approved), 404, 'rejected is gone from the public side')
  t.equal((await app.inject({ url: '/api/memes?q=brunch' })).json().total, 0, 'and from search')

  const audit = await auditOf(app, pending)
  t.equal(audit.length, 1, 'one audit row per change (none for the no-op)')
  t.match(audit[0], { actor: /^admin:[0-9a-f]{12}$/, action: 'meme.approve', detail: { from: 'pending', to: 'approved' } })
  t.notMatch(audit[0].actor, TOKEN.slice(0, 12), 'the actor does not reveal the token')
  t.match(await auditOf(app, approved), [{ action: 'meme.reject', detail: { from: 'approved', to: 'rejected' } }])

  t.equal((await admin(app, 'POST', `/api/admin/memes/${'f'.repeat(64)}/approve`)).statusCode, 404)
  t.equal((await admin(app, 'POST', '/api/admin/memes/not-an-id/reject')).statusCode, 400)
})

test('DELETE soft-deletes: gone everywhere, row kept, audited', async (t) => {
  const { app, approved } = await setup(t)
  t.equal(await publicStatus(app, approved), 200)
  const res = await admin(app, 'DELETE', `/api/admin/memes/${approved}`)
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.equal(await publicStatus(app, approved), 404)
  t.equal((await app.inject({ url: `/media/${approved}` })).statusCode, 404)
  t.equal((await admin(app, 'GET', `/api/admin/memes/${approved}`)).statusCode, 404)
  t.notOk(
    (await admin(app, 'GET', '/api/admin/memes')).json().memes.some((m: { id: string }) => m.id === approved),
    'not listed',
  )
  const { rows } = await app.db.query<{ deleted_at: Date | null }>('SELECT deleted_at FROM memes WHERE id = $1', [approved])
  t.ok(rows[0].deleted_at, 'the row stays with deleted_at set')
  t.match(await auditOf(app, approved), [{ action: 'meme.delete', detail: { status: 'approved' } }])
  t.equal((await admin(app, 'DELETE', `/api/admin/memes/${approved}`)).statusCode, 404, 'deleting twice is 404')
  t.equal((await admin(app, 'POST', `/api/admin/memes/${approved}/approve`)).statusCode, 404, 'a deleted meme cannot come back')
})

test('PATCH edits caption and tags with catalog checks', async (t) => {
  const { app, approved } = await setup(t)
  await addTags(app.db, 'cats', 'monday')
  const res = await admin(app, 'PATCH', `/api/admin/memes/${approved}`, {
    caption: '  Grumpy cat hates mondays  ',
    tags: ['Cats', 'monday', 'cats'],
  })
  t.equal(res.statusCode, 200)
  t.match(res.json().meme, { caption: 'Grumpy cat hates mondays', tags: ['cats', 'monday'] })
  const pub = (await app.inject({ url: `/api/memes/${approved}` })).json().meme
  t.match(pub, { caption: 'Grumpy cat hates mondays', tags: ['cats', 'monday'] }, 'the public record follows at once')
  t.same(
    (await app.inject({ url: '/api/memes?q=grumpy&tag=cats' })).json().memes.map((m: { id: string }) => m.id),
    [approved],
    'search sees the new caption and tags',
  )
  t.equal((await app.inject({ url: '/api/memes?q=brunch' })).json().total, 0, 'the old caption is no longer indexed')
  t.match(await auditOf(app, approved), [
    { action: 'meme.edit', detail: { caption: 'Grumpy cat hates mondays', tags: { from: ['food'], to: ['cats', 'monday'] } } },
  ])

  const unknown = await admin(app, 'PATCH', `/api/admin/memes/${approved}`, { tags: ['cats', 'dogs', 'birds'] })
  t.equal(unknown.statusCode, 400)
  t.match(unknown.json().error, /Unknown tags: dogs, birds/)
  t.same((await admin(app, 'GET', `/api/admin/memes/${approved}`)).json().meme.tags, ['cats', 'monday'], 'nothing changed')

  const captionOnly = await admin(app, 'PATCH', `/api/admin/memes/${approved}`, { caption: 'x'.repeat(2000) })
  t.equal(captionOnly.statusCode, 200, '2000 characters is the limit')
  t.same(captionOnly.json().meme.tags, ['cats', 'monday'], 'tags untouched when absent')
  const cleared = await admin(app, 'PATCH', `/api/admin/memes/${approved}`, { tags: [] })
  t.same(cleared.json().meme.tags, [], 'an empty list clears the tags')

  for (const [body, why] of [
    [{ caption: 'x'.repeat(2001) }, 'caption over 2000'],
    [{}, 'empty body'],
    [{ caption: 'ok', status: 'approved' }, 'unknown field'],
    [{ tags: ['a'.repeat(61)] }, 'tag over 60'],
    [{ tags: [{ name: 'cats' }] }, 'tags not strings'],
    [{ tags: ['ca\u0000ts'] }, 'NUL in a tag'],
    [{ caption: 'nul \u0000 byte' }, 'NUL in the caption'],
  ] as const) {
    const bad = await admin(app, 'PATCH', `/api/admin/memes/${approved}`, body)
    t.equal(bad.statusCode, 400, why)
    t.type(bad.json().error, 'string')
  }
  t.equal((await admin(app, 'PATCH', `/api/admin/memes/${'e'.repeat(64)}`, { caption: 'x' })).statusCode, 404)
})

test('recaption queues a job; media serves any status to the admin', async (t) => {
  const { app, pending } = await setup(t)
  const res = await admin(app, 'POST', `/api/admin/memes/${pending}/recaption`)
  t.equal(res.statusCode, 202)
  const { job } = res.json()
  t.match(job, { id: Number, state: 'queued' })
  const { rows } = await app.db.query<{ meme_id: string; state: string }>(
    'SELECT meme_id, state FROM caption_jobs WHERE id = $1',
    [job.id],
  )
  t.same(rows, [{ meme_id: pending, state: 'queued' }])
  t.match(await auditOf(app, pending), [{ action: 'meme.recaption', detail: { jobId: job.id } }])
  t.match((await admin(app, 'GET', `/api/admin/memes/${pending}`)).json().meme.captionJob, {
    state: 'queued',
    attempts: 0,
    lastError: null,
  })
  t.equal((await admin(app, 'POST', `/api/admin/memes/${'d'.repeat(64)}/recaption`)).statusCode, 404)

  const media = await admin(app, 'GET', `/api/admin/memes/${pending}/media`)
  t.equal(media.statusCode, 200)
  t.equal(media.headers['content-type'], 'image/webp')
  t.same(media.rawPayload, await plainImage(11), 'the stored bytes')
  t.equal((await app.inject({ url: `/media/${pending}` })).statusCode, 404, 'the public media route still refuses it')
  t.equal((await app.inject({ url: `/api/admin/memes/${pending}/media` })).statusCode, 401)
})

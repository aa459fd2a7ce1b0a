import path from 'node:path'
import { openDatabase } from '@app/common'
import { createTestDatabase, eventually } from '@app/testing'
import { test } from 'tap'
import { createCaptionJobsRepository } from '../../src/captions/jobs.ts'
import { build } from '../helper.ts'
import { insertMeme, jobsOf, plainImage } from '../support/memes.ts'
import { type ChatHandler, startChatServer } from '../support/openai-server.ts'

type App = Awaited<ReturnType<typeof build>>
const TOKEN = 'admin-token-0123456789abcdef'
const fast = { CAPTION_RETRY_BASE_MS: '20', CAPTION_POLL_MS: '100' }

const settled = (app: App, id: string) =>
  eventually(async () => {
    const jobs = await jobsOf(app.db, id)
    return jobs.length > 0 && jobs.every((j) => j.state === 'done' || j.state === 'failed') ? jobs : null
  })

async function captionOf(app: App, id: string) {
  const { rows } = await app.db.query<{ caption: string }>('SELECT caption FROM memes WHERE id = $1', [id])
  return rows[0].caption
}

/** Teardowns run by the test itself (closing an app mid-test, then the database after every app). */
function manualTeardown() {
  const fns: (() => unknown)[] = []
  return {
    teardown: (fn: () => unknown) => void fns.push(fn),
    run: async () => {
      for (const fn of fns.splice(0).reverse()) await fn()
    },
  }
}

/** A database opened by the test, so apps can come and go on it (a restart). */
async function sharedDatabase(t: { teardown(fn: () => unknown): void }) {
  const created = await createTestDatabase()
  const db = await openDatabase({ url: created.url, dataDir: path.join(created.dataDir, 'pgdata') })
  const apps = manualTeardown()
  t.teardown(async () => {
    await apps.run()
    await db.close()
    await created.cleanup()
  })
  return { db, apps }
}

test('concurrent claims never hand out one job twice', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' } })
  const ids: string[] = []
  for (let i = 0; i < 12; i++) ids.push(await insertMeme(app, await plainImage(100 + i), { job: true }))
  const queue = createCaptionJobsRepository(app.db)
  const claimed = (await Promise.all(Array.from({ length: 30 }, () => queue.claim(60)))).filter((j) => j !== null)
  t.equal(claimed.length, 12, 'every job claimed once')
  t.equal(new Set(claimed.map((j) => j.id)).size, 12, 'no job claimed twice')
  t.same(new Set(claimed.map((j) => j.memeId)), new Set(ids))
  t.ok(
    claimed.every((j) => j.attempts === 1),
    'the claim counts the attempt',
  )
  t.equal(await queue.claim(60), null, 'running jobs under a live lease are not claimable')
})

test('two app instances on one database never run one job twice', async (t) => {
  const server = await startChatServer(t, async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 30))
    return { content: JSON.stringify({ caption: `seen ${request.imageUrl?.length}`, tags: [] }) }
  })
  const env = { ...fast, CAPTIONER: 'openai', CAPTIONER_URL: server.url, CAPTION_CONCURRENCY: '2' }
  const app1 = await build(t, { env })
  const app2 = await build(t, { env, shareWith: app1 })
  const ids: string[] = []
  for (let i = 0; i < 16; i++) ids.push(await insertMeme(app1, await plainImage(200 + i), { job: true }))
  await app1.db.notify('caption_jobs', 'batch')
  await eventually(async () => {
    const { rows } = await app1.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM caption_jobs WHERE state = 'done'`)
    return rows[0].n === 16
  })
  t.equal(server.requests.length, 16, 'one provider call per job')
  t.equal(new Set(server.requests.map((r) => r.imageUrl)).size, 16, 'each meme captioned exactly once')
  const { rows } = await app1.db.query<{ attempts: number }>('SELECT attempts FROM caption_jobs')
  t.ok(
    rows.every((r) => r.attempts === 1),
    'no job needed a second attempt',
  )
  for (const id of ids) t.match(await captionOf(app2, id), /^seen \d+$/)
})

test('failures are retried with exponential backoff up to CAPTION_MAX_ATTEMPTS', async (t) => {
  const seen: number[] = []
  const server = await startChatServer(t, () => {
    seen.push(performance.now())
    return { status: 500, raw: '{"error":"boom"}' }
  })
  const app = await build(t, {
    env: {
      CAPTIONER: 'openai',
      CAPTIONER_URL: server.url,
      CAPTION_MAX_ATTEMPTS: '4',
      CAPTION_RETRY_BASE_MS: '150',
      CAPTION_POLL_MS: '50',
    },
  })
  const id = await insertMeme(app, await plainImage(300), { job: true })
  await app.captionJobs.notify(id)
  const [job] = await settled(app, id)
  t.match(job, { state: 'failed', attempts: 4, last_error: 'captioner answered HTTP 500' })
  t.equal(seen.length, 4)
  const gaps = seen.slice(1).map((time, i) => time - seen[i])
  // Each retry waits at least base * 2^(attempt-1) (a little slack for clock granularity).
  for (const [i, min] of [150, 300, 600].entries()) {
    t.ok(gaps[i] >= min - 15, `retry ${i + 1} waited ${Math.round(gaps[i])} ms >= ${min}`)
  }
  t.equal(await captionOf(app, id), '')
})

test('a job running when the app shuts down is completed after a restart', async (t) => {
  const { db, apps } = await sharedDatabase(t)
  const hanging = await startChatServer(t, () => ({ hang: true }))
  const app1 = await build({ teardown: apps.teardown }, { db, env: { ...fast, CAPTIONER: 'openai', CAPTIONER_URL: hanging.url } })
  const id = await insertMeme(app1, await plainImage(400), { job: true })
  await app1.captionJobs.notify(id)
  await eventually(async () => hanging.requests.length === 1)
  t.match(await jobsOf(db, id), [{ state: 'running', attempts: 1 }], 'claimed and running')
  await apps.run() // app1 closes while its provider call is in flight
  t.match(await jobsOf(db, id), [{ state: 'queued', attempts: 0 }], 'given back on shutdown, the attempt not counted')

  const good = await startChatServer(t, () => ({ content: '{"caption":"after restart","tags":[]}' }))
  const app2 = await build({ teardown: apps.teardown }, { db, env: { ...fast, CAPTIONER: 'openai', CAPTIONER_URL: good.url } })
  const [job] = await settled(app2, id)
  t.match(job, { state: 'done', attempts: 1 })
  t.equal(await captionOf(app2, id), 'after restart')
})

test('leases of dead workers expire and their jobs are reclaimed; live leases are left alone', async (t) => {
  const server = await startChatServer(t, () => ({ content: '{"caption":"reclaimed","tags":[]}' }))
  const app = await build(t, { env: { ...fast, CAPTIONER: 'openai', CAPTIONER_URL: server.url, CAPTION_MAX_ATTEMPTS: '3' } })
  const crashed = await insertMeme(app, await plainImage(500))
  const exhausted = await insertMeme(app, await plainImage(501))
  const alive = await insertMeme(app, await plainImage(502))
  // As a worker that died mid-job leaves them: running, lease in the past (or still valid).
  await app.db.query(
    `INSERT INTO caption_jobs (meme_id, state, attempts, locked_until) VALUES
       ($1, 'running', 1, now() - interval '1 second'),
       ($2, 'running', 3, now() - interval '1 second'),
       ($3, 'running', 1, now() + interval '1 hour')`,
    [crashed, exhausted, alive],
  )
  await app.captionJobs.notify(crashed)
  t.match(await settled(app, crashed), [{ state: 'done', attempts: 2 }])
  t.equal(await captionOf(app, crashed), 'reclaimed')
  t.match(await settled(app, exhausted), [{ state: 'failed', attempts: 4, last_error: 'lease expired on the last attempt' }])
  await app.captionWorker.idle()
  t.match(await jobsOf(app.db, alive), [{ state: 'running', attempts: 1 }], 'a live lease is not stolen')
  t.equal(server.requests.length, 1, 'only the reclaimed job called the provider')
})

test('an admin edit made while a job runs wins; recaption then replaces it', async (t) => {
  let open: (() => void) | undefined
  const replies = ['{"caption":"model words","tags":[]}', '{"caption":"model words again","tags":[]}']
  const handler: ChatHandler = async () => {
    if (replies.length === 2) await new Promise<void>((resolve) => (open = resolve))
    return { content: replies.shift() }
  }
  const server = await startChatServer(t, handler)
  const app = await build(t, { env: { ...fast, CAPTIONER: 'openai', CAPTIONER_URL: server.url, ADMIN_TOKEN: TOKEN } })
  const id = await insertMeme(app, await plainImage(600), { job: true })
  await app.captionJobs.notify(id)
  await eventually(async () => open !== undefined)
  const edit = await app.inject({
    method: 'PATCH',
    url: `/api/admin/memes/${id}`,
    headers: { authorization: `Bearer ${TOKEN}` },
    payload: { caption: 'admin words' },
  })
  t.equal(edit.statusCode, 200)
  open?.()
  t.match(await settled(app, id), [{ state: 'done', last_error: /kept the admin edit/ }])
  t.equal(await captionOf(app, id), 'admin words', 'the model answer did not overwrite the edit')

  const recaption = await app.inject({
    method: 'POST',
    url: `/api/admin/memes/${id}/recaption`,
    headers: { authorization: `Bearer ${TOKEN}` },
  })
  t.equal(recaption.statusCode, 202)
  await settled(app, id)
  t.equal(await captionOf(app, id), 'model words again', 'an explicit recaption replaces it')
})

test('CAPTIONER=none completes jobs without touching the meme', async (t) => {
  const app = await build(t, { env: { ...fast, CAPTIONER: 'none' } })
  const id = await insertMeme(app, await plainImage(700), { job: true, caption: '' })
  await app.captionJobs.notify(id)
  t.match(await settled(app, id), [{ state: 'done', attempts: 1, last_error: /produces no captions/ }])
  t.equal(await captionOf(app, id), '')
})

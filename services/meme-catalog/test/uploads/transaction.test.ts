import { test } from 'tap'
import { buildApp, pngImage, uploadRequest } from './fixtures.ts'

type App = Awaited<ReturnType<typeof buildApp>>

async function counts(app: App) {
  const { rows } = await app.db.query<{ memes: number; media: number; events: number; jobs: number }>(
    `SELECT (SELECT count(*)::int FROM memes) AS memes, (SELECT count(*)::int FROM meme_media) AS media,
            (SELECT count(*)::int FROM upload_events) AS events, (SELECT count(*)::int FROM caption_jobs) AS jobs`,
  )
  return rows[0]
}

test('duplicates answer with the stored state and create nothing', async (t) => {
  const app = await buildApp(t)
  const png = await pngImage(64)
  const first = await app.inject(uploadRequest(png, { filename: 'one.png' }))
  t.equal(first.statusCode, 201)
  const second = await app.inject(uploadRequest(png, { filename: 'two.png' }))
  t.equal(second.statusCode, 201)
  t.same(second.json().meme, first.json().meme, 'the stored meme, name included')
  t.same(second.json().quota, first.json().quota, 'no quota used')
  t.same(await counts(app), { memes: 1, media: 1, events: 1, jobs: 1 })

  const id = first.json().meme.id
  await app.db.query(`UPDATE memes SET status = 'pending' WHERE id = $1`, [id])
  const pending = await app.inject(uploadRequest(png))
  t.equal(pending.statusCode, 202)
  t.equal(pending.json().message, 'Upload queued for admin review.')

  await app.db.query(`UPDATE memes SET status = 'rejected' WHERE id = $1`, [id])
  const rejected = await app.inject(uploadRequest(png))
  t.equal(rejected.statusCode, 422)
  t.same(Object.keys(rejected.json()).sort(), ['error', 'moderationReason', 'moderationScore'])

  await app.db.query(`UPDATE memes SET status = 'approved', deleted_at = now() WHERE id = $1`, [id])
  const deleted = await app.inject(uploadRequest(png))
  t.equal(deleted.statusCode, 422)
  t.match(deleted.json(), { error: /removed/ })
  t.same(await counts(app), { memes: 1, media: 1, events: 1, jobs: 1 })
})

test('a failing step inside the storage transaction leaves no meme, no media and no quota charge', async (t) => {
  const app = await buildApp(t)
  // A real database failure on the last insert of the transaction (the caption job).
  await app.db.exec(`
    CREATE FUNCTION fail_caption_job() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'simulated crash'; END $$;
    CREATE TRIGGER fail_caption_job BEFORE INSERT ON caption_jobs FOR EACH ROW EXECUTE FUNCTION fail_caption_job();`)
  const png = await pngImage(66)
  const failed = await app.inject(uploadRequest(png))
  t.equal(failed.statusCode, 500)
  t.same(failed.json(), { error: 'Internal server error.' })
  t.same(await counts(app), { memes: 0, media: 0, events: 0, jobs: 0 })
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM rejected_hashes')
  t.equal(Number(rows[0].n), 0)

  await app.db.exec('DROP TRIGGER fail_caption_job ON caption_jobs')
  const retried = await app.inject(uploadRequest(png))
  t.equal(retried.statusCode, 201, 'the same file goes through once the database works')
  t.same(retried.json().quota, { remainingHour: 9, remainingDay: 49, remainingGlobalDay: 999 })
  t.same(await counts(app), { memes: 1, media: 1, events: 1, jobs: 1 })
})

test('a stored upload notifies the caption workers', async (t) => {
  const app = await buildApp(t)
  const payloads: string[] = []
  const unlisten = await app.db.listen('caption_jobs', (payload) => payloads.push(payload))
  t.teardown(unlisten)
  const res = await app.inject(uploadRequest(await pngImage(67)))
  t.equal(res.statusCode, 201)
  for (let i = 0; i < 50 && !payloads.includes(res.json().meme.id); i++) await new Promise((r) => setTimeout(r, 100))
  t.ok(payloads.includes(res.json().meme.id))
})

test('an approved upload is searchable and readable at once; a pending one is not', async (t) => {
  const app = await buildApp(t, { MODERATION_REVIEW_SCORE: '101' })
  const res = await app.inject(uploadRequest(await pngImage(69)))
  t.equal(res.statusCode, 201)
  const id = res.json().meme.id
  const read = await app.inject({ method: 'GET', url: `/api/memes/${id}` })
  t.equal(read.statusCode, 200, read.body)
  t.same(read.json().meme, res.json().meme)
  const list = await app.inject({ method: 'GET', url: '/api/memes' })
  t.same(
    list.json().memes.map((m: { id: string }) => m.id),
    [id],
  )
  const media = await app.inject({ method: 'GET', url: `/media/${id}` })
  t.equal(media.statusCode, 200)
  t.equal(media.headers['content-type'], 'image/webp')

  const pendingApp = await buildApp(t, { MODERATION_REVIEW_SCORE: '0' })
  const pending = await pendingApp.inject(uploadRequest(await pngImage(70)))
  t.equal(pending.statusCode, 202)
  t.equal((await pendingApp.inject({ method: 'GET', url: `/api/memes/${pending.json().meme.id}` })).statusCode, 404)
  t.equal((await pendingApp.inject({ method: 'GET', url: `/media/${pending.json().meme.id}` })).statusCode, 404)
})

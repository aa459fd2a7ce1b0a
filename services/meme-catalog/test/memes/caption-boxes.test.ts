import { eventually } from '@app/testing'
import { test } from 'tap'
import { createCaptionJobsRepository } from '../../src/captions/jobs.ts'
import type { CaptionWord } from '../../src/captions/providers/types.ts'
import { build } from '../helper.ts'
import { addTags, insertMeme, jobsOf, plainImage, renderMeme } from '../support/memes.ts'

const TOKEN = 'admin-token-0123456789abcdef'
type Json = Record<string, unknown>

const box = (text: string, start: number, x: number): CaptionWord => ({
  text,
  start,
  end: start + text.length,
  x,
  y: 20,
  w: 60,
  h: 30,
})

async function setup(t: Parameters<typeof build>[0]) {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' } })
  const caption = 'Crème brûlée, no COFFEE-coffee'
  const id = await insertMeme(app, await plainImage(1), { caption, tags: ['coffee time', 'food'] })
  await app.captionWords.replace(id, caption, [
    box('Crème', 0, 10),
    box('brûlée,', 6, 80),
    box('no', 14, 160),
    box('COFFEE-coffee', 17, 200),
  ])
  return { app, id, caption }
}

test('GET /api/memes/{id}?highlight=: the matched caption words and tags, and the OCR boxes of those words', async (t) => {
  const { app, id, caption } = await setup(t)
  const res = await app.inject({ url: `/api/memes/${id}?highlight=${encodeURIComponent('creme coffe')}` })
  t.equal(res.statusCode, 200)
  const { highlight } = res.json()
  t.same(
    highlight.caption.map((r: { start: number; end: number }) => caption.slice(r.start, r.end)),
    ['Crème', 'COFFEE', 'coffee'],
    'folded, prefix and case rules of the search',
  )
  t.same(highlight.tags, [{ index: 0, ranges: [{ start: 0, end: 6 }] }])
  t.same(
    highlight.boxes.map((b: CaptionWord) => b.text),
    ['Crème', 'COFFEE-coffee'],
    'one box per OCR word holding a match, in caption order',
  )
  t.same(highlight.boxes[0], { text: 'Crème', start: 0, end: 5, x: 10, y: 20, w: 60, h: 30 })

  const none = (await app.inject({ url: `/api/memes/${id}?highlight=penguin` })).json().highlight
  t.same(none, { caption: [], tags: [], boxes: [] }, 'nothing matches: empty lists, the boxes still known')
})

test('GET /api/memes/{id} without highlight answers exactly as before', async (t) => {
  const { app, id } = await setup(t)
  for (const url of [`/api/memes/${id}`, `/api/memes/${id}?highlight=`, `/api/memes/${id}?highlight=%20%20`]) {
    const body = (await app.inject({ url })).json()
    t.same(Object.keys(body), ['meme', 'rateLimit'], url)
  }
})

test('GET /api/memes/{id}?highlight=: 400 for a query without words or too long, 404 for a bad id', async (t) => {
  const { app, id } = await setup(t)
  const blank = await app.inject({ url: `/api/memes/${id}?highlight=${encodeURIComponent('!!! ...')}` })
  t.equal(blank.statusCode, 400)
  t.equal(blank.json().error, "Invalid query parameter 'highlight': it has no searchable word")
  const long = await app.inject({ url: `/api/memes/${id}?highlight=${'a'.repeat(201)}` })
  t.equal(long.statusCode, 400)
  t.match(long.json().error, /^Invalid query parameter 'highlight'/)
  t.equal((await app.inject({ url: '/api/memes/nope?highlight=coffee' })).statusCode, 404)
  t.equal((await app.inject({ url: `/api/memes/${'0'.repeat(64)}?highlight=coffee` })).statusCode, 404)
})

test('boxes are null once an admin edits the caption (their offsets point into the old one)', async (t) => {
  const { app, id } = await setup(t)
  const edit = await app.inject({
    method: 'PATCH',
    url: `/api/admin/memes/${id}`,
    headers: { authorization: `Bearer ${TOKEN}` },
    payload: { caption: 'coffee, edited by hand' },
  })
  t.equal(edit.statusCode, 200)
  const { highlight } = (await app.inject({ url: `/api/memes/${id}?highlight=coffee` })).json()
  t.same(highlight, { caption: [{ start: 0, end: 6 }], tags: [{ index: 0, ranges: [{ start: 0, end: 6 }] }], boxes: null })
})

test('a captioner without boxes (null) removes the boxes of an earlier OCR caption, in the caption’s transaction', async (t) => {
  const { app, id } = await setup(t)
  await app.captionJobs.enqueue(id)
  const job = await createCaptionJobsRepository(app.db).claim(60)
  t.ok(job)
  if (!job) return
  t.equal(await app.memeUseCases.captioned(job, { caption: 'A coffee cup', tags: [], words: null }, 'openai'), true)
  const { rows } = await app.db.query('SELECT 1 FROM meme_caption_words WHERE meme_id = $1', [id])
  t.equal(rows.length, 0)
  const { highlight } = (await app.inject({ url: `/api/memes/${id}?highlight=coffee` })).json()
  t.equal(highlight.boxes, null)
})

test('the OCR caption worker stores the words’ boxes; the route returns the matched one where it is drawn', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'ocr', CAPTION_POLL_MS: '200' } })
  await addTags(app.db, 'friday')
  // 800 x 600; the bottom line's baseline is at y = 564, centred.
  const id = await insertMeme(app, await renderMeme('ONE DOES NOT SIMPLY', 'DEPLOY ON FRIDAY'), { job: true })
  await app.captionJobs.notify(id)
  const [job] = await eventually(
    async () => {
      const jobs = await jobsOf(app.db, id)
      return jobs.every((j) => j.state === 'done' || j.state === 'failed') ? jobs : null
    },
    { timeoutMs: 120_000 },
  )
  t.equal(job.state, 'done')
  const { rows } = await app.db.query<{ caption: string; words: Json[] }>(
    'SELECT caption, words FROM meme_caption_words WHERE meme_id = $1',
    [id],
  )
  t.equal(rows[0]?.caption, 'ONE DOES NOT SIMPLY DEPLOY ON FRIDAY', 'stored with the caption it indexes')
  t.equal(rows[0]?.words.length, 7)

  const { meme, highlight } = (await app.inject({ url: `/api/memes/${id}?highlight=friday` })).json()
  t.equal(meme.caption, 'ONE DOES NOT SIMPLY DEPLOY ON FRIDAY')
  t.same(highlight.caption, [{ start: 30, end: 36 }])
  t.equal(highlight.boxes.length, 1)
  const [friday] = highlight.boxes
  t.match(friday, { text: 'FRIDAY', start: 30, end: 36 })
  t.ok(friday.x > 400 && friday.x + friday.w < 800, `right of the centre (x ${friday.x}, w ${friday.w})`)
  t.ok(friday.y >= 515 && friday.y + friday.h <= 570, `on the bottom line (y ${friday.y}, h ${friday.h})`)
})

import { eventually } from '@app/testing'
import { test } from 'tap'
import { build } from '../helper.ts'
import { ready } from '../memes/fixtures.ts'
import { addTags, insertMeme, plainImage } from '../support/memes.ts'
import { startChatServer } from '../support/openai-server.ts'

const TOKEN = 'admin-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }
type App = Awaited<ReturnType<typeof build>>

async function setup(t: Parameters<typeof build>[0]) {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' } })
  await ready(app)
  await addTags(app.db, 'cats', 'penguin', 'sunday brunch', 'dogs')
  await app.db.query(`INSERT INTO tag_aliases (alias, tag) VALUES ('kitty', 'cats')`)
  const at = (minutes: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + minutes * 60_000)
  const original = await insertMeme(app, await plainImage(1), { status: 'approved', phash: '0f0f0f0f0f0f0f0f', createdAt: at(1) })
  const far = await insertMeme(app, await plainImage(2), { status: 'approved', phash: 'f0f0f0f0f0f0f0f0', createdAt: at(2) })
  const first = await insertMeme(app, await plainImage(3), {
    status: 'pending',
    caption: 'Sunday brnch with a KITTY',
    phash: '0f0f0f0f0f0f0f0e',
    createdAt: at(3),
  })
  const second = await insertMeme(app, await plainImage(4), {
    status: 'pending',
    caption: 'Two penguins',
    tags: ['cats'],
    createdAt: at(4),
  })
  await insertMeme(app, await plainImage(5), { status: 'rejected', caption: 'cats', createdAt: at(5) })
  // What an OpenAI-compatible captioner proposed for the second one.
  await app.db.query(`INSERT INTO meme_tag_suggestions (meme_id, tag) VALUES ($1, 'cats'), ($1, 'penguin')`, [second])
  return { app, original, far, first, second }
}

const review = (app: App, query = '') => app.inject({ url: `/api/admin/review${query}`, headers: auth })

test('the review queue pages pending memes oldest first with near-duplicates and suggested tags', async (t) => {
  const { app, original, first, second } = await setup(t)
  const page1 = await review(app, '?limit=1')
  t.equal(page1.statusCode, 200)
  t.equal(page1.headers['cache-control'], 'no-store')
  const body1 = page1.json()
  t.equal(body1.total, 2)
  t.equal(body1.nextCursor, first)
  t.equal(body1.items.length, 1)
  t.match(body1.items[0].meme, { id: first, status: 'pending', captionSource: null, moderationScore: 3 })
  t.same(body1.items[0].nearDuplicates, [{ id: original, url: `/media/${original}`, distance: 1 }], 'approved and within 6 bits')
  t.same(
    body1.items[0].suggestedTags,
    [
      { tag: 'sunday brunch', source: 'caption', matchedText: 'sunday brnch' },
      { tag: 'cats', source: 'caption', matchedText: 'kitty' },
    ],
    'a name with a typo and an alias found in the caption',
  )

  const page2 = (await review(app, `?limit=1&cursor=${first}`)).json()
  t.equal(page2.nextCursor, null, 'the last page')
  t.same(
    page2.items.map((i: { meme: { id: string } }) => i.meme.id),
    [second],
  )
  t.same(
    page2.items[0].suggestedTags,
    [{ tag: 'penguin', source: 'model', matchedText: null }],
    'a proposal the meme already carries is left out; the caption word is not suggested twice',
  )
  t.same(page2.items[0].nearDuplicates, [], 'no hash, no near-duplicates')

  await app.db.query(`UPDATE memes SET caption_source = 'ocr' WHERE id = $1`, [first])
  const ocr = (await review(app)).json()
  t.same(
    ocr.items[0].suggestedTags.map((s: { source: string }) => s.source),
    ['ocr', 'ocr'],
    'matches in OCR text say so',
  )
})

test('a suggestion is accepted through the audited tag edit; a reviewed meme keeps its place as a cursor', async (t) => {
  const { app, first, second } = await setup(t)
  const patch = await app.inject({
    method: 'PATCH',
    url: `/api/admin/memes/${second}`,
    headers: auth,
    payload: { tags: ['cats', 'penguin'] },
  })
  t.equal(patch.statusCode, 200)
  const { rows } = await app.db.query<{ action: string }>('SELECT action FROM admin_audit WHERE meme_id = $1', [second])
  t.same(rows, [{ action: 'meme.edit' }])
  const approve = await app.inject({ method: 'POST', url: `/api/admin/memes/${first}/approve`, headers: auth })
  t.equal(approve.statusCode, 200)
  const after = (await review(app, `?cursor=${first}`)).json()
  t.equal(after.total, 1)
  t.same(after.items[0].suggestedTags, [], 'nothing left to suggest')
})

test('bad review queries are 400, a missing token 401', async (t) => {
  const { app } = await setup(t)
  t.equal((await review(app, '?limit=11')).statusCode, 400)
  t.equal((await review(app, '?limit=0')).statusCode, 400)
  t.equal((await review(app, '?cursor=nope')).statusCode, 400)
  const unknown = await review(app, `?cursor=${'a'.repeat(64)}`)
  t.equal(unknown.statusCode, 400)
  t.match(unknown.json(), { error: /cursor/ })
  t.equal((await review(app, '?other=1')).statusCode, 400)
  t.equal((await app.inject({ url: '/api/admin/review' })).statusCode, 401)
})

test('a caption job keeps the model’s tags as suggestions on a pending meme and applies them on an approved one', async (t) => {
  const server = await startChatServer(t, (request) => {
    const system = request.body.messages?.[0]?.content
    t.ok(typeof system === 'string' && system.includes('"penguin"'), 'the prompt lists the catalog')
    return { content: JSON.stringify({ caption: 'A penguin at brunch', tags: ['penguin', 'Cats', 'not-a-tag'] }) }
  })
  const app = await build(t, {
    env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'openai', CAPTIONER_URL: server.url, CAPTION_POLL_MS: '100' },
  })
  await ready(app)
  await addTags(app.db, 'cats', 'penguin')
  await app.db.query(`INSERT INTO tag_aliases (alias, tag) VALUES ('kitty', 'cats')`)
  const pending = await insertMeme(app, await plainImage(20), { status: 'pending', job: true })
  const approved = await insertMeme(app, await plainImage(21), { status: 'approved', job: true })
  await app.db.notify('caption_jobs', 'test')
  const done = async (id: string) => {
    const { rows } = await app.db.query(`SELECT 1 FROM caption_jobs WHERE meme_id = $1 AND state = 'done'`, [id])
    return rows.length > 0
  }
  await eventually(async () => (await done(pending)) && (await done(approved)))
  const tagsOf = async (table: string, id: string) =>
    (await app.db.query<{ tag: string }>(`SELECT tag FROM ${table} WHERE meme_id = $1 ORDER BY tag`, [id])).rows.map((r) => r.tag)
  t.same(await tagsOf('meme_tags', pending), [], 'nothing applied without an admin')
  t.same(await tagsOf('meme_tag_suggestions', pending), ['cats', 'penguin'], 'catalog tags only')
  t.same(await tagsOf('meme_tags', approved), ['cats', 'penguin'], 'an approved meme gets the tags as before')
  const item = (await review(app)).json().items[0]
  t.match(item.meme, { id: pending, caption: 'A penguin at brunch', captionSource: 'openai' })
  t.same(item.suggestedTags, [
    { tag: 'cats', source: 'model', matchedText: null },
    { tag: 'penguin', source: 'model', matchedText: null },
  ])
})

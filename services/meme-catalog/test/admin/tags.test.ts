import { test } from 'tap'
import { normalizeCatalogName } from '../../src/admin/tags-routes.ts'
import { build } from '../helper.ts'
import { insertMeme, plainImage } from '../support/memes.ts'

const TOKEN = 'admin-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }

test('tag names are normalized and validated', async (t) => {
  t.equal(normalizeCatalogName('  Cute   Cats '), 'cute cats')
  t.equal(normalizeCatalogName('CAFE\u0301'), 'café', 'NFC')
  t.equal(normalizeCatalogName('é'.repeat(60)), 'é'.repeat(60), '60 characters of any script')
  const statusOf = (name: string) => {
    try {
      normalizeCatalogName(name)
      return 200
    } catch (error) {
      return (error as { statusCode?: number }).statusCode
    }
  }
  t.equal(statusOf('   '), 400, 'blank')
  t.equal(statusOf('a'.repeat(61)), 400, 'too long')
  t.equal(statusOf('bad\u0000name'), 400, 'control character')
})

test('the tag catalog: list with counts, create (409 on duplicates), delete (removed from memes, reindexed)', async (t) => {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none' } })
  const a = await insertMeme(app, await plainImage(20), { caption: 'first cat', tags: ['cats', 'funny'] })
  const b = await insertMeme(app, await plainImage(21), { caption: 'second cat', tags: ['cats'] })

  const listed = await app.inject({ url: '/api/admin/tags', headers: auth })
  t.equal(listed.statusCode, 200)
  t.match(listed.json().tags, [
    { name: 'cats', memeCount: 2, createdAt: String },
    { name: 'funny', memeCount: 1 },
  ])

  const created = await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name: '  Monday ' } })
  t.equal(created.statusCode, 201)
  t.match(created.json(), { tag: { name: 'monday', memeCount: 0, createdAt: String } })
  t.ok((await app.inject({ url: '/api/tags' })).json().tags.includes('monday'), 'the public catalog has it at once')

  const duplicate = await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name: 'MONDAY' } })
  t.equal(duplicate.statusCode, 409)
  t.match(duplicate.json(), { error: /already exists/ })
  for (const payload of [
    { name: '' },
    { name: '   ' },
    { name: 'x'.repeat(61) },
    {},
    { name: 'ok', extra: 1 },
    { name: 'tab\tok\u0007' },
  ]) {
    const res = await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.type(res.json().error, 'string')
  }
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name: 'y'.repeat(60) } })).statusCode,
    201,
  )

  t.same(
    (await app.inject({ url: '/api/memes?tag=cats' }))
      .json()
      .memes.map((m: { id: string }) => m.id)
      .sort(),
    [a, b].sort(),
  )
  const removed = await app.inject({ method: 'DELETE', url: '/api/admin/tags/Cats', headers: auth })
  t.equal(removed.statusCode, 204)
  t.equal((await app.inject({ url: '/api/memes?tag=cats' })).json().total, 0, 'no meme carries it in the index')
  t.same((await app.inject({ url: `/api/memes/${a}` })).json().meme.tags, ['funny'], 'public records lost it at once')
  t.same((await app.inject({ url: `/api/memes/${b}` })).json().meme.tags, [])
  t.notOk((await app.inject({ url: '/api/tags' })).json().tags.includes('cats'))
  const { rows } = await app.db.query('SELECT 1 FROM meme_tags WHERE tag = $1', ['cats'])
  t.equal(rows.length, 0)
  t.equal((await app.inject({ method: 'DELETE', url: '/api/admin/tags/cats', headers: auth })).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/admin/tags/${'z'.repeat(61)}`, headers: auth })).statusCode, 400)

  const audit = await app.db.query<{ action: string; detail: { name: string; memeIds?: string[] } }>(
    `SELECT action, detail FROM admin_audit WHERE action LIKE 'tag.%' ORDER BY id`,
  )
  t.match(audit.rows, [
    { action: 'tag.create', detail: { name: 'monday' } },
    { action: 'tag.create', detail: { name: 'y'.repeat(60) } },
    { action: 'tag.delete', detail: { name: 'cats' } },
  ])
  t.same([...(audit.rows[2].detail.memeIds ?? [])].sort(), [a, b].sort())
})

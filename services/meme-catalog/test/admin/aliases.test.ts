import { test } from 'tap'
import { MAX_ALIASES_PER_TAG } from '../../src/tags/use-cases.ts'
import { build } from '../helper.ts'
import { ready } from '../memes/fixtures.ts'
import { insertMeme, plainImage } from '../support/memes.ts'

const TOKEN = 'admin-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }
const env = { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none' }
type App = Awaited<ReturnType<typeof build>>

const ids = async (app: App, query: string) =>
  (await app.inject(`/api/memes?${query}`))
    .json()
    .memes.map((m: { id: string }) => m.id)
    .sort()
const addAlias = (app: App, tag: string, alias: unknown) =>
  app.inject({ method: 'POST', url: `/api/admin/tags/${encodeURIComponent(tag)}/aliases`, headers: auth, payload: { alias } })
const removeAlias = (app: App, tag: string, alias: string) =>
  app.inject({
    method: 'DELETE',
    url: `/api/admin/tags/${encodeURIComponent(tag)}/aliases/${encodeURIComponent(alias)}`,
    headers: auth,
  })

test('aliases: added by an admin, found by tag filters and query words, never listed as tags', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const a = await insertMeme(app, await plainImage(30), { caption: 'sleepy animal', tags: ['cats'] })
  const b = await insertMeme(app, await plainImage(31), { caption: 'on the sofa', tags: ['cats', 'funny'] })
  const c = await insertMeme(app, await plainImage(32), { caption: 'a dog', tags: ['dogs'] })

  t.same(await ids(app, 'tag=kitty'), [], 'no alias yet')
  const added = await addAlias(app, 'Cats', '  Kitty ')
  t.equal(added.statusCode, 201)
  t.match(added.json(), { alias: { alias: 'kitty', tag: 'cats', createdAt: String } })
  t.equal((await addAlias(app, 'cats', 'kitten')).statusCode, 201)

  t.same(await ids(app, 'tag=kitty'), [a, b].sort(), 'a tag filter naming an alias')
  t.same(await ids(app, 'tag=KITTEN&tag=funny'), [b], 'ANDed with other filters')
  t.same(await ids(app, 'q=kitten'), [a, b].sort(), 'a query word naming an alias')
  t.same(await ids(app, 'q=sleepy+kitty'), [a])
  t.same(await ids(app, 'q=kitty&tag=dogs'), [])
  t.same(await ids(app, 'tag=dogs'), [c])
  t.same((await app.inject('/api/tags')).json().tags, ['cats', 'dogs', 'funny'], '/api/tags lists canonical names only')
  t.same((await app.inject(`/api/memes/${a}`)).json().meme.tags, ['cats'], 'memes carry the tag, not the alias')

  const listed = await app.inject({ url: '/api/admin/tag-aliases', headers: auth })
  t.equal(listed.statusCode, 200)
  t.equal(listed.headers['cache-control'], 'no-store')
  t.match(listed.json().aliases, [
    { alias: 'kitten', tag: 'cats', createdAt: String },
    { alias: 'kitty', tag: 'cats', createdAt: String },
  ])
  const tags = (await app.inject({ url: '/api/admin/tags', headers: auth })).json().tags
  t.match(tags, [
    { name: 'cats', aliases: ['kitten', 'kitty'] },
    { name: 'dogs', aliases: [] },
    { name: 'funny', aliases: [] },
  ])

  // An admin edit naming an alias stores the tag.
  const edited = await app.inject({
    method: 'PATCH',
    url: `/api/admin/memes/${c}`,
    headers: auth,
    payload: { tags: ['kitty', 'dogs'] },
  })
  t.equal(edited.statusCode, 200)
  t.same(edited.json().meme.tags, ['cats', 'dogs'])
  t.same(await ids(app, 'tag=kitty'), [a, b, c].sort())

  const removed = await removeAlias(app, 'cats', 'Kitty')
  t.equal(removed.statusCode, 204)
  t.same(await ids(app, 'tag=kitty'), [], 'removed: the filter names nothing')
  t.same(await ids(app, 'q=kitty'), [])
  t.same(await ids(app, 'tag=kitten'), [a, b, c].sort(), 'the other alias stays')
  t.equal((await removeAlias(app, 'cats', 'kitty')).statusCode, 404)
  t.equal((await removeAlias(app, 'dogs', 'kitten')).statusCode, 404, 'an alias of another tag')

  const audit = await app.db.query<{ action: string; actor: string; detail: object }>(
    `SELECT action, actor, detail FROM admin_audit WHERE action LIKE 'tag.alias.%' ORDER BY id`,
  )
  t.match(audit.rows, [
    { action: 'tag.alias.add', actor: String, detail: { tag: 'cats', alias: 'kitty' } },
    { action: 'tag.alias.add', detail: { tag: 'cats', alias: 'kitten' } },
    { action: 'tag.alias.remove', detail: { tag: 'cats', alias: 'kitty' } },
  ])
})

test('aliases never shadow a tag or another alias: clear 409s and 400s', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  await insertMeme(app, await plainImage(40), { tags: ['cats', 'dogs'] })
  t.equal((await addAlias(app, 'cats', 'kitty')).statusCode, 201)

  const onTag = await addAlias(app, 'cats', 'Dogs')
  t.equal(onTag.statusCode, 409)
  t.match(onTag.json(), { error: /"dogs" is a tag/ })
  t.equal((await addAlias(app, 'cats', 'cats')).statusCode, 409, 'its own name')
  const taken = await addAlias(app, 'dogs', 'KITTY')
  t.equal(taken.statusCode, 409)
  t.match(taken.json(), { error: /already an alias of tag "cats"/ })
  t.equal((await addAlias(app, 'cats', 'kitty')).statusCode, 409, 'the same alias again')

  const tagOverAlias = await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name: 'Kitty' } })
  t.equal(tagOverAlias.statusCode, 409, 'a new tag cannot take an alias name either')
  t.match(tagOverAlias.json(), { error: /alias of tag "cats"/ })

  const missing = await addAlias(app, 'birds', 'tweety')
  t.equal(missing.statusCode, 404)
  t.match(missing.json(), { error: /No tag named "birds"/ })
  for (const alias of ['', '   ', 'x'.repeat(61), 'bad\u0000name', 'zero\u200bwidth', 42]) {
    const res = await addAlias(app, 'cats', alias)
    t.equal(res.statusCode, 400, JSON.stringify(alias))
    t.type(res.json().error, 'string')
  }
  const extra = await app.inject({
    method: 'POST',
    url: '/api/admin/tags/cats/aliases',
    headers: auth,
    payload: { alias: 'ok', more: 1 },
  })
  t.equal(extra.statusCode, 400, 'unknown body fields')
  t.equal((await addAlias(app, 'x'.repeat(61), 'fine')).statusCode, 400, 'invalid tag name')
  t.equal((await removeAlias(app, 'cats', 'x'.repeat(61))).statusCode, 400)
  t.equal((await addAlias(app, 'cats', 'é'.repeat(60))).statusCode, 201, '60 characters of any script')

  for (let i = 2; i < MAX_ALIASES_PER_TAG; i++) t.equal((await addAlias(app, 'cats', `cat alias ${i}`)).statusCode, 201)
  const tooMany = await addAlias(app, 'cats', 'one more')
  t.equal(tooMany.statusCode, 409)
  t.match(tooMany.json(), { error: new RegExp(`already has ${MAX_ALIASES_PER_TAG} aliases`) })

  const noToken = await app.inject({ method: 'POST', url: '/api/admin/tags/cats/aliases', payload: { alias: 'nope' } })
  t.equal(noToken.statusCode, 401)
  t.equal((await app.inject({ url: '/api/admin/tag-aliases' })).statusCode, 401)
  t.equal((await app.inject({ method: 'DELETE', url: '/api/admin/tags/cats/aliases/kitty' })).statusCode, 401)
})

test('a tag and an alias of the same name asked for at once: exactly one is made', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  await insertMeme(app, await plainImage(50), { tags: ['cats'] })
  for (let round = 0; round < 5; round++) {
    const name = `contested ${round}`
    const [tag, alias] = await Promise.all([
      app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name } }),
      addAlias(app, 'cats', name),
    ])
    t.same([tag.statusCode, alias.statusCode].sort(), [201, 409], `round ${round}`)
  }
})

test('removing a tag removes its aliases everywhere; a tag may then take the name', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  const a = await insertMeme(app, await plainImage(60), { caption: 'x', tags: ['cats'] })
  t.equal((await addAlias(app, 'cats', 'kitty')).statusCode, 201)
  t.same(await ids(app, 'tag=kitty'), [a])
  t.equal((await app.inject({ method: 'DELETE', url: '/api/admin/tags/cats', headers: auth })).statusCode, 204)
  t.same((await app.inject({ url: '/api/admin/tag-aliases', headers: auth })).json().aliases, [])
  t.same(await ids(app, 'tag=kitty'), [])
  const audit = await app.db.query<{ detail: { aliases: string[] } }>(
    `SELECT detail FROM admin_audit WHERE action = 'tag.delete'`,
  )
  t.same(audit.rows[0].detail.aliases, ['kitty'], 'the audit row names the aliases removed with it')

  t.equal(
    (await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name: 'kitty' } })).statusCode,
    201,
  )
  const b = await insertMeme(app, await plainImage(61), { tags: ['kitty'] })
  t.same(await ids(app, 'tag=kitty'), [b], 'kitty is a tag of its own now, not a stale alias')
})

test('memes stored or captioned with an alias get its tag', async (t) => {
  const app = await build(t, { env })
  await ready(app)
  await insertMeme(app, await plainImage(70), { tags: ['cats'] })
  t.equal((await addAlias(app, 'cats', 'kitty')).statusCode, 201)
  const b = await insertMeme(app, await plainImage(71), { tags: ['kitty'] })
  t.same((await app.inject(`/api/memes/${b}`)).json().meme.tags, ['cats'], 'stored under the tag')
  t.same((await app.inject('/api/tags')).json().tags, ['cats'], 'no tag shadows the alias')
  await app.db.transaction(async (tx) => {
    const { createMemeWriteRepository } = await import('../../src/memes/write-repository.ts')
    await createMemeWriteRepository(tx).writeCaption(b, 'a caption', 'openai', ['kitty', 'unknown'])
  })
  const { rows } = await app.db.query('SELECT tag FROM meme_tags WHERE meme_id = $1', [b])
  t.same(rows, [{ tag: 'cats' }], "a captioner's alias is stored as the tag; unknown names are dropped")
})

import { eventually } from '@app/testing'
import { test } from 'tap'
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
const addAlias = (app: App, tag: string, alias: string) =>
  app.inject({ method: 'POST', url: `/api/admin/tags/${encodeURIComponent(tag)}/aliases`, headers: auth, payload: { alias } })
const removeAlias = (app: App, tag: string, alias: string) =>
  app.inject({
    method: 'DELETE',
    url: `/api/admin/tags/${encodeURIComponent(tag)}/aliases/${encodeURIComponent(alias)}`,
    headers: auth,
  })

test('alias changes reach every instance, also one built afterwards', async (t) => {
  const app1 = await build(t, { env })
  const app2 = await build(t, { env, shareWith: app1 })
  await ready(app1)
  await ready(app2)
  const a = await insertMeme(app1, await plainImage(80), { tags: ['cats'] })
  await eventually(async () => (await ids(app2, 'tag=cats')).length === 1, { timeoutMs: 3000, intervalMs: 20 })

  t.equal((await addAlias(app1, 'cats', 'kitty')).statusCode, 201)
  t.same(await ids(app1, 'tag=kitty'), [a], 'at once on the instance that made it')
  await eventually(async () => (await ids(app2, 'q=kitty')).length === 1, { timeoutMs: 1000, intervalMs: 20 })
  t.same(await ids(app2, 'tag=kitty'), [a], 'the other within a second')

  const app3 = await build(t, { env, shareWith: app1 })
  await ready(app3)
  t.same(await ids(app3, 'tag=kitty'), [a], 'a new instance loads them with its read model')

  t.equal((await removeAlias(app2, 'cats', 'kitty')).statusCode, 204)
  await eventually(async () => (await ids(app1, 'tag=kitty')).length === 0, { timeoutMs: 1000, intervalMs: 20 })
  await eventually(async () => (await ids(app3, 'q=kitty')).length === 0, { timeoutMs: 1000, intervalMs: 20 })
  t.pass('removed everywhere')
})

import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

const TOKEN = 'hostile-values-token-0123456789'
const auth = { authorization: `Bearer ${TOKEN}` }

// Values the long fuzz found: numbers that are not finite, and JSON text that is not Unicode.
test('non-finite numbers in a query are a 400, on public and admin routes', async (t) => {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none' } })
  await ready(app)
  await addMeme(app, { caption: 'one' })
  for (const url of ['/api/memes?pageSize=Infinity', '/api/memes?pageSize=1e309', '/api/memes?page=Infinity']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    t.match(res.json().error, /must be a finite number/, url)
  }
  for (const url of ['/api/admin/memes?pageSize=Infinity', '/api/admin/memes?page=4294967296&pageSize=Infinity']) {
    const res = await app.inject({ url, headers: auth })
    t.equal(res.statusCode, 400, url)
  }
})

test('admin text that is not valid Unicode is a 400 and nothing is written', async (t) => {
  const app = await build(t, { env: { ADMIN_TOKEN: TOKEN, CAPTIONER: 'none' } })
  await ready(app)
  const id = await addMeme(app, { caption: 'before' })
  const send = (method: 'POST' | 'PATCH', url: string, payload: string) =>
    app.inject({ method, url, headers: { ...auth, 'content-type': 'application/json' }, payload })
  for (const [method, url, payload] of [
    ['POST', '/api/admin/tags', '{"name":"\\ud800"}'],
    ['POST', '/api/admin/tags', '{"name":"/>\\ud800\'\\ud800\\""}'],
    ['PATCH', `/api/admin/memes/${id}`, '{"caption":"x\\udc00"}'],
  ] as const) {
    const res = await send(method, url, payload)
    t.equal(res.statusCode, 400, `${method} ${url} ${payload}`)
    t.match(res.json().error, /not valid Unicode/)
  }
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin_audit')
  t.equal(rows[0].n, 0, 'no audit row')
  t.equal((await app.inject(`/api/memes/${id}`)).json().meme.caption, 'before')
})

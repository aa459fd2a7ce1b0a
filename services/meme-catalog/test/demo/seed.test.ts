import sharp from 'sharp'
import { test } from 'tap'
import { DEMO_MEMES, DEMO_TAGS } from '../../src/demo/catalog.ts'
import { demoEnabled, seedDemoMemes } from '../../src/demo/seed.ts'
import { build } from '../helper.ts'
import { ready } from '../memes/fixtures.ts'

type Json = Record<string, any>

test('DEMO_MEMES: auto is on for the embedded database only', async (t) => {
  t.equal(demoEnabled({ DEMO_MEMES: 'auto', DATABASE_URL: undefined }), true)
  t.equal(demoEnabled({ DEMO_MEMES: 'auto', DATABASE_URL: 'postgres://x/y' }), false)
  t.equal(demoEnabled({ DEMO_MEMES: 'true', DATABASE_URL: 'postgres://x/y' }), true)
  t.equal(demoEnabled({ DEMO_MEMES: 'false', DATABASE_URL: undefined }), false)
})

test('an empty catalog gets the demo memes: drawn images, captions, tags, searchable', async (t) => {
  const app = await build(t, { env: { DEMO_MEMES: 'true' } })
  t.equal((await app.inject('/api/health')).statusCode, 200, 'health does not wait for the drawing')
  t.equal(await app.demo.seeded, DEMO_MEMES.length)
  await ready(app)

  const list = (await app.inject('/api/memes?pageSize=48')).json()
  t.equal(list.total, DEMO_MEMES.length)
  t.ok(
    list.memes.every((m: Json) => m.demo === true && m.status === 'approved'),
    'all demo, approved',
  )
  t.equal(list.memes[0].caption, DEMO_MEMES[0].caption, 'newest first in catalog order')
  t.same((await app.inject('/api/tags')).json().tags, [...DEMO_TAGS].sort())

  const first = list.memes[0]
  const media = await app.inject(first.url)
  t.equal(media.statusCode, 200)
  const meta = await sharp(media.rawPayload).metadata()
  t.equal(meta.format, 'webp')
  t.equal(meta.width, first.width)
  t.equal(meta.height, first.height)
  t.equal(media.rawPayload.length, first.byteSize)

  const search = async (q: string) =>
    (await app.inject(`/api/memes?q=${encodeURIComponent(q)}`)).json().memes.map((m: Json) => m.caption)
  t.same(await search('deja vu'), ['Déjà vu: the same bug fixed twice'], 'accent-insensitive')
  t.same(await search('smorgasbord'), ['Smörgåsbord of unfinished side projects'])
  t.same(await search('jalapeno pizza'), ['Jalapeño pizza was a mistake'])
})

test('seeding is skipped when the catalog has memes, and runs once', async (t) => {
  const app = await build(t)
  t.equal(await app.demo.seeded, 0, 'off by default in tests')
  t.equal(await seedDemoMemes(app.db, app.memeUseCases), DEMO_MEMES.length)
  t.equal(await seedDemoMemes(app.db, app.memeUseCases), 0, 'not twice')
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM memes')
  t.equal(rows[0].n, DEMO_MEMES.length)
})

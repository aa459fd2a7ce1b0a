import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from './fixtures.ts'

type Json = Record<string, any>

test('GET /api/memes?highlight=true says what matched; without it the answer is unchanged', async (t) => {
  const app = await build(t)
  await ready(app)
  const brulee = await addMeme(app, { caption: 'Crème BRÛLÉE for breakfast', tags: ['food', 'breakfast-club'], ageMinutes: 2 })
  const cats = await addMeme(app, { caption: 'Cat knocks the coffee off', tags: ['cats', 'coffee'], ageMinutes: 1 })

  const plain = await app.inject('/api/memes?q=brulee')
  t.same(Object.keys(plain.json()), ['page', 'pageSize', 'total', 'totalPages', 'memes', 'rateLimit'], 'default shape')
  const off = await app.inject('/api/memes?q=brulee&highlight=false')
  t.notOk('highlights' in off.json(), 'highlight=false is the default')

  const res = await app.inject('/api/memes?q=brekfast%20crem&highlight=true')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(Object.keys(body), ['page', 'pageSize', 'total', 'totalPages', 'memes', 'highlights', 'rateLimit'])
  t.same(
    body.memes.map((m: Json) => m.id),
    [brulee],
  )
  const [one] = body.highlights
  t.equal(one.id, brulee)
  const caption = body.memes[0].caption as string
  t.same(
    one.caption.map((r: Json) => caption.slice(r.start, r.end)),
    ['Crème', 'breakfast'],
    'a typo and an accented prefix map back to the original words',
  )
  const tagAt = (body.memes[0].tags as string[]).indexOf('breakfast-club')
  t.same(one.tags, [{ index: tagAt, ranges: [{ start: 0, end: 9 }] }], 'the word "breakfast" of the tag breakfast-club')

  const byTag = (await app.inject('/api/memes?tag=Coffee&q=cat&highlight=true')).json()
  t.same(
    byTag.memes.map((m: Json) => m.id),
    [cats],
  )
  t.same(
    byTag.highlights,
    [
      {
        id: cats,
        caption: [{ start: 0, end: 3 }],
        tags: [
          { index: 0, ranges: [{ start: 0, end: 4 }] },
          { index: 1, ranges: [{ start: 0, end: 6 }] },
        ],
      },
    ],
    'the filtered tag whole, and "cats" by the prefix cat',
  )

  const listed = (await app.inject('/api/memes?highlight=true')).json()
  t.same(
    listed.highlights,
    [
      { id: cats, caption: [], tags: [] },
      { id: brulee, caption: [], tags: [] },
    ],
    'without q or tag nothing matched, one entry per meme',
  )
  t.equal((await app.inject('/api/memes?highlight=maybe')).statusCode, 400)
})

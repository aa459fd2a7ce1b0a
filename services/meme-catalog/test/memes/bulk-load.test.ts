import { test } from 'tap'
import { corpusMeme, inBatches, streamCorpus } from '../../bench/corpus.ts'
import { build } from '../helper.ts'
import { ready } from './fixtures.ts'

type App = Awaited<ReturnType<typeof build>>

/** The foreign keys of meme_tags as the catalog describes them. */
async function linkForeignKeys(app: App) {
  const { rows } = await app.db.query<{ name: string; definition: string; validated: boolean }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition, convalidated AS validated FROM pg_constraint
     WHERE conrelid = 'meme_tags'::regclass AND contype = 'f' ORDER BY conname`,
  )
  return rows
}

const count = async (app: App, sql: string) => (await app.db.query<{ n: number }>(sql)).rows[0].n

test('a bulk load into an empty catalog keeps the tag links foreign keys as they were, validated', async (t) => {
  const app = await build(t)
  await ready(app)
  const before = await linkForeignKeys(app)
  t.equal(before.length, 2, 'links reference a meme and a catalog tag')
  t.equal(await count(app, 'SELECT count(*)::int AS n FROM memes'), 0, 'the catalog starts empty')

  const memes = [...streamCorpus({ documents: 600, seed: 8 }).documents].map(corpusMeme)
  t.equal(await app.memeUseCases.bulkLoad(inBatches(memes, 250)), 600)
  t.same(await linkForeignKeys(app), before, 'the same constraints, validated')
  const links = memes.reduce((sum, m) => sum + (m.tags?.length ?? 0), 0)
  t.equal(await count(app, 'SELECT count(*)::int AS n FROM meme_tags'), links, 'every link stored')
  t.equal(app.readModel.current?.size, 600, 'the read model reloaded')

  // The constraints act again: a link to a missing meme is refused, deleting a tag cascades to its links.
  await t.rejects(
    app.db.query('INSERT INTO meme_tags (meme_id, tag) VALUES ($1, $2)', ['f'.repeat(64), memes[0].tags?.[0]]),
    { code: '23503' },
    'a link to a missing meme is refused',
  )
  const tag = memes[0].tags?.[0] as string
  await app.db.query('DELETE FROM tags WHERE name = $1', [tag])
  t.equal(await count(app, `SELECT count(*)::int AS n FROM meme_tags WHERE tag = '${tag.replace(/'/g, "''")}'`), 0)
})

test('a failing bulk load into an empty catalog stores nothing and leaves the foreign keys in place', async (t) => {
  const app = await build(t)
  await ready(app)
  const before = await linkForeignKeys(app)
  const memes = [...streamCorpus({ documents: 300, seed: 9 }).documents].map(corpusMeme)
  // The last batch repeats an id of the first: the COPY fails after the constraints were dropped.
  await t.rejects(app.memeUseCases.bulkLoad([...inBatches(memes, 100), [memes[0]]]))
  t.equal(await count(app, 'SELECT count(*)::int AS n FROM memes'), 0, 'no meme stored')
  t.equal(await count(app, 'SELECT count(*)::int AS n FROM meme_tags'), 0, 'no link stored')
  t.same(await linkForeignKeys(app), before, 'the constraints are back (rolled back with the load)')
})

test('a bulk load into a catalog that has memes checks each link as it goes', async (t) => {
  const app = await build(t)
  await ready(app)
  const before = await linkForeignKeys(app)
  const memes = [...streamCorpus({ documents: 200, seed: 10 }).documents].map(corpusMeme)
  t.equal(await app.memeUseCases.bulkLoad([memes.slice(0, 50)]), 50)
  t.equal(await app.memeUseCases.bulkLoad(inBatches(memes.slice(50), 60)), 150)
  t.same(await linkForeignKeys(app), before)
  t.equal(await count(app, 'SELECT count(*)::int AS n FROM memes'), 200)
  t.equal(app.readModel.current?.size, 200)
})

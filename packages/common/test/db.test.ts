import { existsSync } from 'node:fs'
import { createTestDatabase } from '@app/testing'
import { test } from 'tap'
import { copyText, openDatabase } from '../src/db/index.ts'
import { PGLITE_SETTINGS } from '../src/db/pglite.ts'

// The same behaviour is required of both drivers; the suite runs on PGlite, and on the real
// server when DATABASE_URL is set (.ci/run does both).
test('query, int8 as number, transactions, listen/notify', async (t) => {
  const target = await createTestDatabase()
  const db = await openDatabase({ url: target.url, dataDir: `${target.dataDir}/pg` })
  t.teardown(async () => {
    await db.close()
    await target.cleanup()
  })
  t.equal(db.driver, target.url ? 'pg' : 'pglite')

  await db.exec(
    'CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, n bigint NOT NULL DEFAULT 0); CREATE INDEX ON items (name);',
  )
  const inserted = await db.query<{ id: number }>('INSERT INTO items (name, n) VALUES ($1, $2), ($3, $4) RETURNING id', [
    'a',
    1,
    'b',
    2,
  ])
  t.equal(inserted.rowCount, 2)
  const { rows } = await db.query<{ total: number }>('SELECT sum(n)::bigint AS total FROM items')
  t.equal(rows[0].total, 3, 'int8 arrives as a number')

  const injected = "x'); DROP TABLE items; --"
  await db.query('INSERT INTO items (name) VALUES ($1)', [injected])
  const found = await db.query<{ name: string }>('SELECT name FROM items WHERE name = $1', [injected])
  t.equal(found.rows[0].name, injected, 'parameters are never spliced into SQL')

  await t.rejects(
    db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (name) VALUES ($1)', ['rolled back'])
      throw new Error('boom')
    }),
    /boom/,
  )
  const after = await db.query('SELECT 1 FROM items WHERE name = $1', ['rolled back'])
  t.equal(after.rowCount, 0, 'a failed transaction leaves nothing')

  const committed = await db.transaction(async (tx) => {
    await tx.query('INSERT INTO items (name) VALUES ($1)', ['kept'])
    return 'done'
  })
  t.equal(committed, 'done')

  const received: string[] = []
  const unlisten = await db.listen('item_events', (payload) => received.push(payload))
  await db.notify('item_events', 'hello')
  for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
  t.same(received, ['hello'], 'a notification reaches the listener')
  await unlisten()
})

test('the embedded database persists under its folder across reopen', {
  skip: process.env.DATABASE_URL ? 'embedded-only behaviour' : false,
}, async (t) => {
  const target = await createTestDatabase()
  t.teardown(() => target.cleanup())
  const first = await openDatabase({ dataDir: `${target.dataDir}/pg` })
  await first.exec('CREATE TABLE kept (v text)')
  await first.query('INSERT INTO kept VALUES ($1)', ['survives'])
  await first.close()
  const second = await openDatabase({ dataDir: `${target.dataDir}/pg` })
  const { rows } = await second.query<{ v: string }>('SELECT v FROM kept')
  await second.close()
  t.same(rows, [{ v: 'survives' }])
})

test('a new embedded database is created with bounded memory settings, in memory:// too', {
  skip: process.env.DATABASE_URL ? 'embedded-only behaviour' : false,
}, async (t) => {
  const target = await createTestDatabase()
  t.teardown(() => target.cleanup())
  for (const dataDir of [`${target.dataDir}/fresh`, 'memory://']) {
    const db = await openDatabase({ dataDir })
    const { rows } = await db.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM unnest($1::text[]) AS name ORDER BY name`,
      [Object.keys(PGLITE_SETTINGS)],
    )
    await db.close()
    t.same(Object.fromEntries(rows.map((r) => [r.name, r.setting])), PGLITE_SETTINGS, dataDir)
  }
  t.ok(existsSync(`${target.dataDir}/fresh/PG_VERSION`), 'the new folder holds a database')
})

test('copyFrom bulk-loads rows in COPY text format, in and out of a transaction', async (t) => {
  const target = await createTestDatabase()
  const db = await openDatabase({ url: target.url, dataDir: `${target.dataDir}/pg` })
  t.teardown(async () => {
    await db.close()
    await target.cleanup()
  })
  await db.exec('CREATE TABLE notes (id integer PRIMARY KEY, body text, flag boolean NOT NULL)')
  const awkward = ['tab\there', 'new\nline', 'back\\slash \\N', 'carriage\rreturn', 'plain é']
  // A generator of many rows: the drivers must stream it in chunks, not need it as one array.
  function* rows() {
    for (let i = 0; i < 20_000; i++) {
      const body = i < awkward.length ? awkward[i] : i === 7 ? null : `row ${i}`
      yield [copyText(i), copyText(body), copyText(i % 2 === 0)].join('\t')
    }
  }
  t.equal(await db.copyFrom('notes', ['id', 'body', 'flag'], rows()), 20_000)
  const { rows: first } = await db.query<{ id: number; body: string | null; flag: boolean }>(
    'SELECT id, body, flag FROM notes WHERE id < 8 ORDER BY id',
  )
  t.same(
    first.map((r) => r.body),
    [...awkward, 'row 5', 'row 6', null],
    'tabs, newlines, backslashes and nulls survive',
  )
  t.same(
    first.map((r) => r.flag),
    [true, false, true, false, true, false, true, false],
  )

  await t.rejects(
    db.transaction(async (tx) => {
      await tx.copyFrom('notes', ['id', 'body', 'flag'], ['100000\tinside\ttrue'])
      throw new Error('boom')
    }),
    /boom/,
  )
  t.equal((await db.query('SELECT 1 FROM notes WHERE id = 100000')).rowCount, 0, 'a COPY in a failed transaction is undone')
  await t.rejects(db.copyFrom('notes', ['id', 'body', 'flag'], ['1\tduplicate\ttrue']), 'a failing COPY rejects')
  t.equal(
    await db.copyFrom('notes', ['id', 'body', 'flag'], ['100001\tafter\tfalse']),
    1,
    'the database still copies after a failure',
  )
})

test("a service's own embedded settings apply when its database opens; a server's are left alone", async (t) => {
  const target = await createTestDatabase()
  t.teardown(() => target.cleanup())
  const dataDir = `${target.dataDir}/own`
  const bufferPool = async (pglite?: { shared_buffers: string }) => {
    const db = await openDatabase({ url: target.url, dataDir, pglite })
    const { rows } = await db.query<{ pool: string; sorts: string }>(
      "SELECT current_setting('shared_buffers') AS pool, current_setting('work_mem') AS sorts",
    )
    await db.close()
    return rows[0]
  }
  const shared = await bufferPool()
  const own = await bufferPool({ shared_buffers: '8MB' })
  if (target.url) {
    t.same(own, shared, 'a PostgreSQL server keeps its own configuration')
    return
  }
  t.same(shared, { pool: PGLITE_SETTINGS.shared_buffers, sorts: PGLITE_SETTINGS.work_mem })
  t.same(own, { pool: '8MB', sorts: PGLITE_SETTINGS.work_mem }, 'the given setting wins, the others stay shared')
  t.same(await bufferPool(), shared, 'nothing is written to the folder: the next open without it is back to shared')
})

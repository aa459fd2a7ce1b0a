import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createTestDatabase } from '@app/testing'
import { test } from 'tap'
import { type Database, migrate, openDatabase } from '../src/db/index.ts'

async function migrationsDir(files: Record<string, string>) {
  const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'))
  for (const [name, sql] of Object.entries(files)) await writeFile(path.join(dir, name), sql)
  return dir
}

async function freshDatabase(t: { teardown: (fn: () => unknown) => void }): Promise<{ open: () => Promise<Database> }> {
  const target = await createTestDatabase()
  const opened: Database[] = []
  t.teardown(async () => {
    for (const db of opened) await db.close()
    await target.cleanup()
  })
  let shared: Database | undefined
  return {
    async open() {
      // PGlite is one in-process database: "two instances" share it; pg opens separate pools.
      if (!target.url && shared) return shared
      const db = await openDatabase({ url: target.url, dataDir: `${target.dataDir}/pg` })
      opened.push(db)
      shared = db
      return db
    },
  }
}

test('migrations apply in name order, once, and are recorded', async (t) => {
  const { open } = await freshDatabase(t)
  const db = await open()
  const dir = await migrationsDir({
    '002_second.sql': "INSERT INTO log (step) VALUES ('second');",
    '001_first.sql': "CREATE TABLE log (id serial PRIMARY KEY, step text); INSERT INTO log (step) VALUES ('first');",
    'README.txt': 'not a migration',
  })
  t.same(await migrate(db, dir), ['001_first.sql', '002_second.sql'])
  t.same(await migrate(db, dir), [], 'a second run applies nothing')
  const { rows } = await db.query<{ step: string }>('SELECT step FROM log ORDER BY id')
  t.same(
    rows.map((r) => r.step),
    ['first', 'second'],
  )
  const recorded = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
  t.same(
    recorded.rows.map((r) => r.name),
    ['001_first.sql', '002_second.sql'],
  )
})

test('a failing migration is undone whole, earlier ones stay, and the error is thrown', async (t) => {
  const { open } = await freshDatabase(t)
  const db = await open()
  const dir = await migrationsDir({
    '001_ok.sql': 'CREATE TABLE ok_table (v int);',
    '002_bad.sql': 'CREATE TABLE half_done (v int); SELECT no_such_function();',
    '003_never.sql': 'CREATE TABLE never_table (v int);',
  })
  await t.rejects(migrate(db, dir), /002_bad|no_such_function/)
  const tables = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
  )
  t.same(
    tables.rows.map((r) => r.name),
    ['ok_table', 'schema_migrations'],
    'half_done rolled back, never_table not run',
  )
})

test('two runners starting at once apply each migration exactly once', async (t) => {
  const { open } = await freshDatabase(t)
  const [a, b] = [await open(), await open()]
  const dir = await migrationsDir({
    // The sleep widens the window in which an unguarded second runner would also apply it.
    '001_slow.sql': 'CREATE TABLE counter (n int); SELECT pg_sleep(0.3); INSERT INTO counter VALUES (1);',
    '002_next.sql': 'INSERT INTO counter VALUES (2);',
  })
  const [first, second] = await Promise.all([migrate(a, dir), migrate(b, dir)])
  t.same([...first, ...second].sort(), ['001_slow.sql', '002_next.sql'], 'between them, each applied once')
  const { rows } = await a.query<{ n: number }>('SELECT n FROM counter ORDER BY n')
  t.same(
    rows.map((r) => r.n),
    [1, 2],
  )
})

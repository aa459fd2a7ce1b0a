import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase } from '@app/common'
import { createTestDatabase } from '@app/testing'
import { test } from 'tap'

const serviceDir = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))))

/** The catalog's server.ts in its own process, JSON logs collected line by line. */
function startCatalog(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: serviceDir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  let pending = ''
  const waiters: Array<{ match: (line: Record<string, unknown>) => boolean; resolve: () => void }> = []
  child.stdout.on('data', (chunk) => {
    pending += chunk
    const complete = pending.split('\n')
    pending = complete.pop() ?? ''
    for (const text of complete.filter(Boolean)) {
      const line = JSON.parse(text) as Record<string, unknown>
      lines.push(line)
      for (const waiter of waiters.filter((w) => w.match(line))) waiter.resolve()
    }
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const logged = (match: (line: Record<string, unknown>) => boolean) =>
    new Promise<void>((resolve) => {
      if (lines.some(match)) resolve()
      else waiters.push({ match, resolve })
    })
  return { child: child as ChildProcess, lines, exited, logged, stderr: () => stderr }
}

test('SIGTERM while the demo memes are drawn: clean exit 0, no error logs, and the seeding stops', async (t) => {
  const database = await createTestDatabase()
  t.teardown(() => database.cleanup())
  const location = { DATA_DIR: database.dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) }
  const catalog = startCatalog({ ...location, DEMO_MEMES: 'true' })
  t.teardown(() => catalog.child.kill('SIGKILL'))
  await catalog.logged((l) => l.msg === 'drawing the demo memes')
  catalog.child.kill('SIGTERM')
  t.equal(await catalog.exited, 0, 'exit code 0')
  t.equal(catalog.stderr(), '', 'nothing on stderr')
  t.same(
    catalog.lines.filter((l) => Number(l.level) >= 50),
    [],
    'no error or fatal log line',
  )
  t.ok(
    catalog.lines.some((l) => l.msg === 'shutting down'),
    'the shutdown line',
  )
  t.ok(
    catalog.lines.some((l) => l.msg === 'demo memes not added: shutting down'),
    'the seeding says it stopped',
  )
  t.notOk(
    catalog.lines.some((l) => l.msg === 'demo memes added'),
    'and did not finish',
  )
  // After the process is gone: the seeding left nothing behind (the memes go in one transaction).
  const db = await openDatabase({ url: database.url, dataDir: path.join(database.dataDir, 'pgdata') })
  t.teardown(() => db.close())
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM memes')
  t.equal(rows[0]?.count, 0, 'no demo meme stored')
})

test('SIGTERM during start-up, before the server listens: clean exit 0 without error logs', async (t) => {
  const database = await createTestDatabase()
  t.teardown(() => database.cleanup())
  const location = { DATA_DIR: database.dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) }
  const catalog = startCatalog({ ...location, DEMO_MEMES: 'false' })
  t.teardown(() => catalog.child.kill('SIGKILL'))
  // The first line comes from the database start-up (migrations), long before the model is loaded.
  await catalog.logged(() => true)
  catalog.child.kill('SIGTERM')
  t.equal(await catalog.exited, 0, 'exit code 0')
  t.equal(catalog.stderr(), '', 'nothing on stderr')
  t.same(
    catalog.lines.filter((l) => Number(l.level) >= 50),
    [],
    'no error or fatal log line',
  )
  t.notOk(
    catalog.lines.some((l) => String(l.msg).startsWith('Server listening')),
    'stopped before it listened',
  )
})

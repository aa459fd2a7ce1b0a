import { createServer, type Socket } from 'node:net'
import { DatabaseUnavailableError, openDatabase } from '@app/common'
import { eventually } from '@app/testing'
import { startPrivatePostgres, unavailableReason } from '@app/testing/faults'
import { test } from 'tap'

const skip = unavailableReason()
if (skip) console.log(`# SKIP database fault tests: ${skip}`)

test('the pg driver fails fast with DatabaseUnavailableError and recovers, LISTEN included', { skip }, async (t) => {
  const pg = await startPrivatePostgres()
  t.teardown(() => pg.destroy())
  const db = await openDatabase({ url: pg.url, dataDir: 'unused' })
  t.teardown(() => db.close())
  const received: string[] = []
  let reconnects = 0
  await db.listen('fault_test', (payload) => received.push(payload), { onReconnect: () => reconnects++ })
  await db.notify('fault_test', 'before')
  await eventually(() => received.includes('before'), { timeoutMs: 5000 })

  await pg.stop('fast')
  const started = Date.now()
  const results = await Promise.allSettled(Array.from({ length: 15 }, () => db.query('SELECT 1')))
  const elapsed = Date.now() - started
  t.ok(
    results.every((r) => r.status === 'rejected' && r.reason instanceof DatabaseUnavailableError),
    'every query while down rejects with DatabaseUnavailableError (503)',
  )
  t.ok(elapsed < 3500, `15 concurrent queries failed within ${elapsed} ms`)
  await t.rejects(
    db.transaction(async (tx) => tx.query('SELECT 1')),
    DatabaseUnavailableError,
    'transactions too',
  )

  await pg.start()
  await eventually(
    async () =>
      await db.query('SELECT 1').then(
        () => true,
        () => false,
      ),
    { timeoutMs: 15_000 },
  )
  t.pass('the pool reconnects without reopening the database')
  await eventually(() => reconnects > 0, { timeoutMs: 15_000 })
  t.ok(reconnects > 0, 'the LISTEN connection was re-established and reported a resync')
  await db.notify('fault_test', 'after')
  await eventually(() => received.includes('after'), { timeoutMs: 5000 })
  t.ok(received.includes('after'), 'notifications flow again after the restart')
})

test('the server dying between two queries of a transaction rejects it (503) instead of crashing the process', {
  skip,
}, async (t) => {
  const pg = await startPrivatePostgres()
  t.teardown(() => pg.destroy())
  const db = await openDatabase({ url: pg.url, dataDir: 'unused' })
  t.teardown(() => db.close())
  await db.exec('CREATE TABLE t (n int)')
  // The client sits checked out and idle while the server goes away (pg emits 'error' on it then).
  const pending = db.transaction(async (tx) => {
    await tx.query('INSERT INTO t VALUES (1)')
    await pg.stop('immediate')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await tx.query('INSERT INTO t VALUES (2)')
  })
  await t.rejects(pending, DatabaseUnavailableError, 'the transaction fails as unavailable')
  await pg.start()
  let rows: unknown[] = []
  for (let i = 0; i < 50; i++) {
    const result = await db.query('SELECT n FROM t').then(
      (r) => r.rows,
      () => undefined,
    )
    if (result) {
      rows = result
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  t.same(rows, [], 'nothing of the interrupted transaction was committed, and the pool works again')
})

test('a server that accepts but never answers costs at most the 3 s connect timeout, even with the pool full', async (t) => {
  const sockets = new Set<Socket>()
  const silent = createServer((socket) => sockets.add(socket))
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    silent.close()
  })
  const { port } = silent.address() as { port: number }
  const db = await openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, dataDir: 'unused' })
  t.teardown(() => db.close())
  const started = Date.now()
  // More queries than pool slots (10): the queued ones must time out as "unavailable" too.
  const results = await Promise.allSettled(Array.from({ length: 14 }, () => db.query('SELECT 1')))
  const elapsed = Date.now() - started
  const kinds = results.map((r) => (r.status === 'rejected' ? (r.reason as Error).name : 'fulfilled'))
  t.same(new Set(kinds), new Set(['DatabaseUnavailableError']), `every query rejected as unavailable: ${kinds.join(',')}`)
  t.ok(elapsed < 4500, `all failed within ${elapsed} ms (connectionTimeoutMillis 3000)`)
})

import { READINESS_CHECK_TIMEOUT_MS } from '@app/common'
import { startPrivatePostgres, unavailableReason } from '@app/testing/faults'
import { test } from 'tap'
import { build } from '../helper.ts'

test('GET /api/ready answers 200 with every check passed, no session needed, never cached', async (t) => {
  const app = await build(t)
  const res = await app.inject({ url: '/api/ready' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    ready: true,
    checks: [
      { name: 'database', ok: true },
      { name: 'migrations', ok: true },
    ],
  })
  t.equal(res.headers['cache-control'], 'no-store')
})

test('a migration the database has not recorded makes the instance not ready, naming the reason', async (t) => {
  const app = await build(t)
  await app.db.query("DELETE FROM schema_migrations WHERE name = '005_rollup_point.sql'")
  const res = await app.inject({ url: '/api/ready' })
  t.equal(res.statusCode, 503)
  t.same(res.json().checks, [
    { name: 'database', ok: true },
    { name: 'migrations', ok: false, reason: '1 not applied' },
  ])
})

test('a database that stops answering gives 503 within the check timeout instead of a hanging probe', async (t) => {
  const app = await build(t)
  const query = app.db.query
  let probes = 0
  const stalled: ((error: Error) => void)[] = []
  // The database accepts the query and never answers (a stalled server or network).
  app.db.query = ((sql: string) => {
    // Only the readiness query counts: background work (the alert dispatcher) stalls here too.
    if (sql.startsWith('SELECT name FROM schema_migrations')) probes++
    return new Promise((_, reject) => stalled.push(reject))
  }) as typeof query
  const answers = await Promise.all([app.inject({ url: '/api/ready' }), app.inject({ url: '/api/ready' })])
  for (const res of answers) {
    t.equal(res.statusCode, 503)
    t.same(res.json(), {
      ready: false,
      checks: [
        { name: 'database', ok: false, reason: `no answer within ${READINESS_CHECK_TIMEOUT_MS} ms` },
        { name: 'migrations', ok: false, reason: `no answer within ${READINESS_CHECK_TIMEOUT_MS} ms` },
      ],
    })
  }
  t.equal(probes, 1, 'concurrent probes share one database query')
  // The app's close waits for its background work: the stalled queries fail now, as a dropped connection would.
  app.db.query = query
  for (const reject of stalled) reject(new Error('connection lost'))
})

const skip = unavailableReason()
test('PostgreSQL stopped: 503 "unreachable"; restarted: ready again without a restart of the service', { skip }, async (t) => {
  const pg = await startPrivatePostgres()
  t.teardown(() => pg.destroy())
  const app = await build(t, { env: { DATABASE_URL: pg.url } })
  t.equal((await app.inject({ url: '/api/ready' })).statusCode, 200)
  await pg.stop('immediate')
  const down = await app.inject({ url: '/api/ready' })
  t.equal(down.statusCode, 503)
  t.same(down.json().checks, [
    { name: 'database', ok: false, reason: 'unreachable' },
    { name: 'migrations', ok: false, reason: 'unknown: the database is unreachable' },
  ])
  t.equal((await app.inject({ url: '/api/health' })).statusCode, 200, 'liveness is unaffected')
  await pg.start()
  let status = 0
  for (let i = 0; i < 50 && status !== 200; i++) {
    status = (await app.inject({ url: '/api/ready' })).statusCode
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200))
  }
  t.equal(status, 200, 'ready once PostgreSQL is back')
})

import { test } from 'tap'
import { build } from '../helper.ts'

test('GET /api/health answers ok on a migrated database', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ok: true })
  const { rows } = await app.db.query<{ name: string }>('SELECT name FROM schema_migrations')
  t.ok(
    rows.some((r) => r.name === '001_catalog.sql'),
    'migrations recorded',
  )
})

import { test } from 'tap'
import { build } from '../helper.ts'

test('GET /api/health answers ok with no-store on a migrated database', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ok: true })
  t.equal(res.headers['cache-control'], 'no-store')
})

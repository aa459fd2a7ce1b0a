import { test } from 'tap'
import { build } from '../helper.ts'

test('GET /api/ready: 200 once the database answers, migrations are applied and the classifier is loaded', async (t) => {
  const app = await build(t)
  await app.moderation.classifier.ready()
  const res = await app.inject({ url: '/api/ready' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    ready: true,
    checks: [
      { name: 'database', ok: true },
      { name: 'migrations', ok: true },
      { name: 'classifier', ok: true },
    ],
  })
  t.equal(res.headers['cache-control'], 'no-store')
})

test('a classifier that is not loaded makes the instance not ready, naming it', async (t) => {
  const app = await build(t)
  await app.moderation.classifier.ready()
  await app.moderation.classifier.close()
  const res = await app.inject({ url: '/api/ready' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), {
    ready: false,
    checks: [
      { name: 'database', ok: true },
      { name: 'migrations', ok: true },
      { name: 'classifier', ok: false, reason: 'the moderation model is closed (shutting down)' },
    ],
  })
  t.equal((await app.inject({ url: '/api/health' })).statusCode, 200, 'liveness is unaffected')
})

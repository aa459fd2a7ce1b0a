import { setTimeout as sleep } from 'node:timers/promises'
import { startNodeSimulator } from '@app/node-simulator'
import {
  postgresOutage,
  slowest,
  startPrivatePostgres,
  startTraffic,
  tally,
  unavailableReason,
  undocumentedTraffic,
} from '@app/testing/faults'
import { test } from 'tap'
import { build, login } from '../helper.ts'

const skip = unavailableReason()
if (skip) console.log(`# SKIP database fault tests: ${skip}`)

const RPC_PASSWORD = 'fault-rpc-Secret-pass'

test('PostgreSQL stopped and restarted: the dashboard answers 503 fast, then recovers with the same session', {
  skip,
}, async (t) => {
  const pg = await startPrivatePostgres()
  t.teardown(() => pg.destroy())
  const sim = await startNodeSimulator({ password: RPC_PASSWORD })
  t.teardown(() => sim.close())
  const app = await build(t, { env: { DATABASE_URL: pg.url, METRICS_SAMPLE_SECONDS: '1', RPC_TIMEOUT_MS: '2000' } })
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD })
  const cookie = await login(app)
  const traffic = startTraffic(app, async (call) => {
    await call('settings', { url: '/api/settings', headers: { cookie } })
    await call('summary', { url: '/api/dashboard/summary', headers: { cookie } })
    await call('history', { url: '/api/dashboard/history?window=5m', headers: { cookie } })
    await call('rpc', { method: 'POST', url: '/api/rpc/call', headers: { cookie }, payload: { method: 'getblockcount' } })
    await call('health', { url: '/api/health' })
  })
  const answers = traffic.answers

  await sleep(2500)
  const { downFrom, down, upAgain, recoveredAt } = await postgresOutage(pg, traffic, {
    mode: 'fast',
    recovered: (x) => x.kind === 'settings' && x.status === 200,
    settleMs: 1500,
  })
  await traffic.stop()

  t.comment(`before: ${JSON.stringify(tally(answers.filter((x) => x.endedAt < downFrom)))}`)
  t.comment(`down: ${JSON.stringify(tally(down))}`)
  t.comment(`after: ${JSON.stringify(tally(answers.filter((x) => x.startedAt > upAgain)))}`)
  t.ok(down.length > 5, `${down.length} requests answered while PostgreSQL was down`)
  t.same(
    down
      .filter((x) => x.status >= 500 && x.status !== 503 && x.status !== 502)
      .map((x) => `${x.kind} ${x.status} ${x.body.slice(0, 120)}`),
    [],
    'no 5xx other than 502/503 while down',
  )
  t.ok(
    down.some((x) => x.status === 503),
    'requests that need the database answer 503',
  )
  t.same(
    down
      .filter((x) => x.status >= 400 && typeof (JSON.parse(x.body) as { detail?: unknown }).detail !== 'string')
      .map((x) => x.body),
    [],
    'every error while down has {"detail"}',
  )
  // Each kind of call and its operation in the OpenAPI document: what it answered must be listed there.
  const operations: Record<string, [string, string]> = {
    settings: ['get', '/api/settings'],
    summary: ['get', '/api/dashboard/summary'],
    history: ['get', '/api/dashboard/history'],
    rpc: ['post', '/api/rpc/call'],
    health: ['get', '/api/health'],
  }
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  t.same(undocumentedTraffic(doc, operations, down), [], 'every status answered while down is documented for its route')
  t.ok(slowest(down) < 3500, `slowest answer while down: ${slowest(down)} ms (fail fast, < 3.5 s)`)
  t.ok(recoveredAt, 'the same session works again after PostgreSQL came back, without restarting the service')
  t.comment(`recovered ${recoveredAt ? recoveredAt - upAgain : 'never'} ms after PostgreSQL was started again`)
  const after = answers.filter((x) => recoveredAt && x.startedAt > recoveredAt)
  t.same(
    after.filter((x) => x.status !== 200).map((x) => `${x.kind} ${x.status} ${x.body.slice(0, 120)}`),
    [],
    'every route answers 200 again after recovery',
  )
})

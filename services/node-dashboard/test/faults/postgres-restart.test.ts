import { startNodeSimulator } from '@app/node-simulator'
import { undocumentedAnswers } from '@app/testing'
import { startPrivatePostgres, unavailableReason } from '@app/testing/faults'
import type { InjectOptions } from 'fastify'
import { test } from 'tap'
import { build, login } from '../helper.ts'

const skip = unavailableReason()
if (skip) console.log(`# SKIP database fault tests: ${skip}`)

const RPC_PASSWORD = 'fault-rpc-Secret-pass'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Answer {
  kind: string
  startedAt: number
  endedAt: number
  status: number
  body: string
}

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
  const answers: Answer[] = []
  let running = true
  const call = async (kind: string, options: InjectOptions) => {
    const startedAt = Date.now()
    const res = await app.inject(options)
    answers.push({ kind, startedAt, endedAt: Date.now(), status: res.statusCode, body: res.body })
  }
  const traffic = (async () => {
    while (running) {
      await call('settings', { url: '/api/settings', headers: { cookie } })
      await call('summary', { url: '/api/dashboard/summary', headers: { cookie } })
      await call('history', { url: '/api/dashboard/history?window=5m', headers: { cookie } })
      await call('rpc', { method: 'POST', url: '/api/rpc/call', headers: { cookie }, payload: { method: 'getblockcount' } })
      await call('health', { url: '/api/health' })
      await sleep(20)
    }
  })()

  await sleep(2500)
  await pg.stop('fast')
  const downFrom = Date.now()
  await sleep(5000)
  const downUntil = Date.now()
  await pg.start()
  const upAgain = Date.now()
  let recoveredAt: number | undefined
  while (!recoveredAt && Date.now() - upAgain < 30_000) {
    await sleep(200)
    recoveredAt = answers.find((x) => x.startedAt > upAgain && x.kind === 'settings' && x.status === 200)?.endedAt
  }
  await sleep(1500)
  running = false
  await traffic

  const tally = (list: Answer[]) =>
    list.reduce<Record<string, number>>((acc, x) => {
      acc[`${x.kind} ${x.status}`] = (acc[`${x.kind} ${x.status}`] ?? 0) + 1
      return acc
    }, {})
  const down = answers.filter((x) => x.startedAt >= downFrom && x.endedAt <= downUntil)
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
  t.same(
    undocumentedAnswers(
      doc,
      down.map((x) => ({ operation: operations[x.kind] as [string, string], status: x.status })),
    ),
    [],
    'every status answered while down is documented for its route',
  )
  const slowest = Math.max(...down.map((x) => x.endedAt - x.startedAt))
  t.ok(slowest < 3500, `slowest answer while down: ${slowest} ms (fail fast, < 3.5 s)`)
  t.ok(recoveredAt, 'the same session works again after PostgreSQL came back, without restarting the service')
  t.comment(`recovered ${recoveredAt ? recoveredAt - upAgain : 'never'} ms after PostgreSQL was started again`)
  const after = answers.filter((x) => recoveredAt && x.startedAt > recoveredAt)
  t.same(
    after.filter((x) => x.status !== 200).map((x) => `${x.kind} ${x.status} ${x.body.slice(0, 120)}`),
    [],
    'every route answers 200 again after recovery',
  )
})

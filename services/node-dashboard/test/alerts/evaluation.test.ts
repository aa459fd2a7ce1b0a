import { loadConfig } from '@app/common'
import { startNodeSimulator } from '@app/node-simulator'
import { createTestDatabase, eventually, freePort, startWebhookReceiver, type WebhookReceiver } from '@app/testing'
import { test } from 'tap'
import { buildApp } from '../../src/app.ts'
import { configSchema } from '../../src/config.ts'
import { build, TEST_PASSWORD } from '../helper.ts'
import { ALERT_TEST_ENV, alertsApp, withSession } from './helper.ts'

const events = (receiver: WebhookReceiver) =>
  receiver.requests.map((r) => {
    const body = JSON.parse(r.body)
    return `${body.event} ${body.rule?.kind}`
  })

const settle = () => new Promise((resolve) => setTimeout(resolve, 400))

test('the node stopping, stalling, restarting and warming up: each rule fires once and resolves once', async (t) => {
  let node = await startNodeSimulator({ peers: 2 })
  t.teardown(() => node.close())
  const { app, call } = await alertsApp(t)
  await app.settingsCache.update({ rpc_url: node.url, rpc_username: 'u', rpc_password: 'p' })
  const receiver = await startWebhookReceiver()
  t.teardown(() => receiver.close())
  await call('POST', '/api/alerts/targets', { name: 'receiver', format: 'json', url: `${receiver.origin}/hook` })
  for (const rule of [
    { kind: 'node_unreachable', threshold: 0 },
    { kind: 'peers_below', threshold: 1 },
    { kind: 'initial_download' },
  ]) {
    t.equal((await call('POST', '/api/alerts/rules', rule)).statusCode, 201)
  }
  const roundIs = async (expected: string) => {
    const outcome = await app.sampler.sampleOnce()
    const why = outcome === expected ? '' : ` (last notification: ${receiver.requests.at(-1)?.body})`
    t.equal(outcome, expected, `a round: ${expected}${why}`)
  }
  const received = (n: number) => eventually(() => receiver.requests.length >= n, { what: `${n} notifications` })

  await roundIs('sampled')
  await settle()
  t.same(events(receiver), [], 'a healthy node: nothing')

  await node.close()
  await roundIs('failed')
  await received(1)
  t.same(events(receiver), ['fired node_unreachable'])
  t.match(JSON.parse(receiver.requests[0].body).message, /^no answer for 0 min: /)
  await roundIs('failed')
  await roundIs('failed')
  await settle()
  t.equal(receiver.requests.length, 1, 'no repeat while it stays down')
  const firing = (await call('GET', '/api/alerts/rules')).body.rules[0]
  t.match(firing, { kind: 'node_unreachable', firing: true })

  node = await startNodeSimulator({ port: node.port, peers: 2 })
  await roundIs('sampled')
  await received(2)
  t.same(events(receiver), ['fired node_unreachable', 'resolved node_unreachable'])
  await roundIs('sampled')
  await settle()
  t.equal(receiver.requests.length, 2, 'resolved once')

  // Stalled: the node accepts the request and answers nothing within RPC_TIMEOUT_MS.
  node.setLatency(8000)
  await roundIs('failed')
  await received(3)
  await roundIs('failed')
  node.setLatency(0)
  await roundIs('sampled')
  await received(4)
  await settle()
  t.same(events(receiver).slice(2), ['fired node_unreachable', 'resolved node_unreachable'])

  node.setWarmup('Loading block index…')
  await roundIs('failed')
  await received(5)
  await roundIs('failed')
  node.setWarmup(null)
  await roundIs('sampled')
  await received(6)
  await settle()
  t.same(events(receiver).slice(4), ['fired initial_download', 'resolved initial_download'], 'a warming-up node is reachable')
  t.match(JSON.parse(receiver.requests[4].body).message, /^warming up: Loading block index/)

  const deliveries = (await call('GET', '/api/alerts/deliveries')).body.deliveries
  t.equal(deliveries.length, 6)
  t.ok(
    deliveries.every((d: { state: string; last_status: number }) => d.state === 'delivered' && d.last_status === 200),
    'each delivered with 200',
  )
  t.equal((await app.audit.recent(100)).filter((a) => a.name === 'fired' || a.name === 'resolved').length, 6, 'each audited')
})

test('a node with too few peers fires the peer rule, with the count', async (t) => {
  const node = await startNodeSimulator({ peers: 1 })
  t.teardown(() => node.close())
  const { app, call } = await alertsApp(t)
  await app.settingsCache.update({ rpc_url: node.url, rpc_username: 'u', rpc_password: 'p' })
  const receiver = await startWebhookReceiver()
  t.teardown(() => receiver.close())
  await call('POST', '/api/alerts/targets', { name: 'r', format: 'json', url: `${receiver.origin}/` })
  await call('POST', '/api/alerts/rules', { kind: 'peers_below', threshold: 3 })
  await call('POST', '/api/alerts/rules', { kind: 'mempool_above', threshold: 0.001 })
  node.addTransactions(20)
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  await eventually(() => receiver.requests.length === 2)
  const messages = receiver.requests.map((r) => JSON.parse(r.body)).sort((a, b) => a.rule.id - b.rule.id)
  t.match(messages[0], { event: 'fired', message: /^1 peer connected/ })
  t.match(messages[1], { event: 'fired', rule: { kind: 'mempool_above' }, message: /^mempool at [\d.]+ MB/ })
})

test('the firing state survives a restart of the dashboard: no second notification, then one resolution', async (t) => {
  const database = await createTestDatabase()
  const env = {
    ...ALERT_TEST_ENV,
    LOG_LEVEL: 'silent',
    DASHBOARD_PASSWORD: TEST_PASSWORD,
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  }
  const start = async () => {
    const app = buildApp(loadConfig(configSchema, env))
    await app.ready()
    return app
  }
  const port = await freePort()
  const receiver = await startWebhookReceiver()
  t.teardown(() => receiver.close())

  const first = await start()
  const { call } = await withSession(first)
  await first.settingsCache.update({ rpc_url: `http://127.0.0.1:${port}/`, rpc_username: 'u', rpc_password: 'p' })
  await call('POST', '/api/alerts/targets', { name: 'r', format: 'json', url: `${receiver.origin}/` })
  await call('POST', '/api/alerts/rules', { kind: 'node_unreachable', threshold: 0 })
  t.equal(await first.sampler.sampleOnce(), 'failed')
  await eventually(() => receiver.requests.length === 1)
  await first.close()

  const second = await start()
  t.teardown(async () => {
    await second.close()
    await database.cleanup()
  })
  t.equal(await second.sampler.sampleOnce(), 'failed')
  await settle()
  t.equal(receiver.requests.length, 1, 'still down after the restart: no new notification')
  t.match((await (await withSession(second)).call('GET', '/api/alerts/rules')).body.rules[0], { firing: true })

  const node = await startNodeSimulator({ port })
  t.teardown(() => node.close())
  t.equal(await second.sampler.sampleOnce(), 'sampled')
  await eventually(() => receiver.requests.length === 2)
  t.same(events(receiver), ['fired node_unreachable', 'resolved node_unreachable'])
})

test('with two instances only the sampler leader evaluates: one notification', async (t) => {
  const port = await freePort()
  const { app: a, call } = await alertsApp(t)
  const b = await build(t, { shareWith: a, env: ALERT_TEST_ENV })
  await a.settingsCache.update({ rpc_url: `http://127.0.0.1:${port}/`, rpc_username: 'u', rpc_password: 'p' })
  const receiver = await startWebhookReceiver()
  t.teardown(() => receiver.close())
  await call('POST', '/api/alerts/targets', { name: 'r', format: 'json', url: `${receiver.origin}/` })
  await call('POST', '/api/alerts/rules', { kind: 'node_unreachable', threshold: 0 })
  const outcomes: string[] = []
  for (let i = 0; i < 3; i++) outcomes.push(...(await Promise.all([a.sampler.sampleOnce(), b.sampler.sampleOnce()])))
  t.equal(outcomes.filter((o) => o === 'failed').length, 3, 'one instance took every round')
  t.equal(outcomes.filter((o) => o === 'not-leader').length, 3, 'the other took none')
  await eventually(() => receiver.requests.length >= 1)
  await settle()
  t.same(events(receiver), ['fired node_unreachable'], 'one notification')
})

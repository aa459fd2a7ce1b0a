import { Writable } from 'node:stream'
import { loadConfig } from '@app/common'
import { createTestDatabase, eventually, startWebhookReceiver } from '@app/testing'
import { test } from 'tap'
import type { Observation } from '../../src/alerts/rules.ts'
import { buildApp } from '../../src/app.ts'
import { configSchema } from '../../src/config.ts'
import { TEST_PASSWORD } from '../helper.ts'
import { ALERT_TEST_ENV, alertsApp, withSession } from './helper.ts'

/** A reachable node with `peers` peers, seen at `at`. */
const round = (at: Date, peers: number): Observation => ({
  at,
  reachable: true,
  failure: null,
  warmup: null,
  initialBlockDownload: false,
  height: 100,
  peers,
  mempoolBytes: 1000,
  walletBalance: null,
})

test('a target answering 500 twice is retried with growing backoff until its 200, each attempt audited', async (t) => {
  const { app, call } = await alertsApp(t)
  const receiver = await startWebhookReceiver((_request, n) => ({ status: n < 2 ? 500 : 200 }))
  t.teardown(() => receiver.close())
  await call('POST', '/api/alerts/targets', { name: 'flaky', format: 'json', url: `${receiver.origin}/flaky` })
  await call('POST', '/api/alerts/rules', { kind: 'peers_below', threshold: 1 })
  t.equal(await app.alerts.evaluate(round(new Date(), 0)), 1, 'one delivery queued')

  const delivered = await eventually(async () => {
    const [d] = (await call('GET', '/api/alerts/deliveries')).body.deliveries
    return d?.state === 'delivered' ? d : null
  })
  t.match(delivered, { event: 'fired', attempts: 3, last_status: 200, last_error: null, title: 'FIRING: Fewer than 1 peer' })
  t.equal(receiver.requests.length, 3, 'three attempts reached the receiver, no fourth')
  const [a, b, c] = receiver.requests.map((r) => r.at)
  // ALERT_RETRY_BASE_MS=200: the first retry waits 200 ms, the second 400 ms.
  t.ok(b - a >= 190, `first retry after ${b - a} ms`)
  t.ok(c - b >= 390, `second retry after ${c - b} ms`)
  t.same(receiver.requests[0].body, receiver.requests[2].body, 'the same notification each time')
  const audit = (await app.audit.recent(20)).filter((row) => row.name === 'webhook').reverse()
  t.same(
    audit.map((row) => row.ok),
    [false, false, true],
  )
  t.match(audit[0].outcome, /attempt 1\/4, HTTP 500, retry in 200 ms/)
  t.match(audit[1].outcome, /attempt 2\/4, HTTP 500, retry in 400 ms/)
  t.match(audit[2].outcome, /attempt 3\/4, HTTP 200$/)
  await new Promise((resolve) => setTimeout(resolve, 600))
  t.equal(receiver.requests.length, 3, 'nothing more once delivered')
})

test('a target that never answers times out; attempts are bounded and the delivery ends as failed', async (t) => {
  const { app, call } = await alertsApp(t, { env: { ALERT_DELIVERY_ATTEMPTS: '2', ALERT_WEBHOOK_TIMEOUT_MS: '800' } })
  const receiver = await startWebhookReceiver(() => 'hang')
  t.teardown(() => receiver.close())
  // An audit row written apart from its attempt lands late here: a reader must never see the one without the other.
  const query = app.db.query
  app.db.query = (async (sql: string, params?: unknown[]) => {
    if (sql.startsWith('INSERT INTO audit_log')) await new Promise((resolve) => setTimeout(resolve, 500))
    return query.call(app.db, sql, params)
  }) as typeof query
  t.teardown(() => {
    app.db.query = query
  })
  const target = await call('POST', '/api/alerts/targets', { name: 'silent', format: 'ntfy', url: `${receiver.origin}/topic` })
  await call('POST', '/api/alerts/rules', { kind: 'peers_below', threshold: 1 })
  await app.alerts.evaluate(round(new Date(), 0))
  const failed = await eventually(async () => {
    const [d] = (await call('GET', '/api/alerts/deliveries')).body.deliveries
    return d?.state === 'failed' ? d : null
  })
  t.match(failed, { attempts: 2, last_status: null, last_error: 'timeout' })
  t.equal(receiver.requests.length, 2)
  const outcomes = (await app.audit.recent(10)).filter((row) => row.name === 'webhook').map((row) => row.outcome)
  t.match(outcomes[0], /attempt 2\/2, timeout$/)
  t.match(outcomes[1], /attempt 1\/2, timeout, retry in 200 ms/)

  // The test button: one attempt, bounded by the same timeout.
  const started = Date.now()
  const tested = await call('POST', `/api/alerts/targets/${target.body.id}/test`)
  t.match(tested.body, { ok: false, status: null, error: 'timeout' })
  t.ok(Date.now() - started < 5000, 'the test call returned after the timeout')

  // At most 4 test notifications wait on targets at once per instance; the fifth is told to come back.
  const burst = await Promise.all(Array.from({ length: 5 }, () => call('POST', `/api/alerts/targets/${target.body.id}/test`)))
  t.same(burst.map((res) => res.statusCode).sort(), [200, 200, 200, 200, 429])
})

test('a 4xx answer is final: no retry', async (t) => {
  const { app, call } = await alertsApp(t)
  const receiver = await startWebhookReceiver(() => ({ status: 404, body: 'no such hook' }))
  t.teardown(() => receiver.close())
  await call('POST', '/api/alerts/targets', { name: 'gone', format: 'slack', url: `${receiver.origin}/gone` })
  await call('POST', '/api/alerts/rules', { kind: 'peers_below', threshold: 1 })
  await app.alerts.evaluate(round(new Date(), 0))
  const failed = await eventually(async () => {
    const [d] = (await call('GET', '/api/alerts/deliveries')).body.deliveries
    return d?.state === 'failed' ? d : null
  })
  t.match(failed, { attempts: 1, last_status: 404, last_error: 'HTTP 404' })
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal(receiver.requests.length, 1)
})

test('json, ntfy, Slack and Discord bodies; webhook URLs never reach a log line', async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  const database = await createTestDatabase()
  const config = loadConfig(configSchema, {
    ...ALERT_TEST_ENV,
    LOG_LEVEL: 'trace',
    DASHBOARD_PASSWORD: TEST_PASSWORD,
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  })
  const app = buildApp(config, { log: { stream } })
  await app.ready()
  t.teardown(async () => {
    await app.close()
    await database.cleanup()
  })
  const { call } = await withSession(app)
  const receiver = await startWebhookReceiver((request) => ({ status: request.path.includes('fail') ? 500 : 200 }))
  t.teardown(() => receiver.close())
  const token = `tok${Date.now().toString(36)}Qz`
  const formats = ['json', 'ntfy', 'slack', 'discord'] as const
  for (const format of formats) {
    const res = await call('POST', '/api/alerts/targets', { name: format, format, url: `${receiver.origin}/${format}/${token}` })
    t.equal(res.statusCode, 201)
  }
  await call('POST', '/api/alerts/targets', {
    name: 'failing',
    format: 'json',
    url: `http://u:${token}@127.0.0.1:1/fail/${token}`,
  })
  await call('POST', '/api/alerts/rules', { kind: 'peers_below', threshold: 2 })
  await app.alerts.evaluate(round(new Date(), 1))
  await eventually(async () => {
    const { deliveries } = (await call('GET', '/api/alerts/deliveries')).body
    return deliveries.length === 5 && deliveries.every((d: { state: string }) => d.state !== 'pending')
  })
  const body = (format: string) => receiver.requests.find((r) => r.path.startsWith(`/${format}/`))!

  const json = JSON.parse(body('json').body)
  t.match(json, {
    event: 'fired',
    rule: { kind: 'peers_below', threshold: 2, description: 'Fewer than 2 peers' },
    title: 'FIRING: Fewer than 2 peers',
    message: /^1 peer connected \(rule \d+, /,
  })
  t.match(body('json').headers['content-type'], /application\/json/)

  const ntfy = body('ntfy')
  t.equal(ntfy.headers.title, 'FIRING: Fewer than 2 peers')
  t.equal(ntfy.headers.priority, 'high')
  t.equal(ntfy.headers.tags, 'warning')
  t.match(ntfy.headers['content-type'], /text\/plain/)
  t.match(ntfy.body, /^1 peer connected/)

  t.same(Object.keys(JSON.parse(body('slack').body)), ['text'])
  t.match(JSON.parse(body('slack').body).text, /^FIRING: Fewer than 2 peers: 1 peer connected/)
  const discord = JSON.parse(body('discord').body)
  t.match(discord.content, /^FIRING: Fewer than 2 peers: 1 peer connected/)
  t.same(discord.allowed_mentions, { parse: [] }, 'node text can never mention anyone')

  const failed = (await call('GET', '/api/alerts/deliveries')).body.deliveries.find(
    (d: { target_name: string }) => d.target_name === 'failing',
  )
  t.match(failed, { state: 'failed', last_error: 'ECONNREFUSED' })
  await call('POST', '/api/alerts/targets/1/test')
  t.ok(lines.length > 10, `${lines.length} log lines`)
  const leaks = lines.filter((line) => line.includes(token))
  t.same(leaks, [], 'no log line holds a webhook URL')
  const audit = await app.audit.recent(100)
  t.notOk(JSON.stringify(audit).includes(token), 'nor does the audit log')
})

import { startWebhookReceiver } from '@app/testing'
import { test } from 'tap'
import { alertsApp } from './helper.ts'

test('rules: created, listed, changed and deleted, each audited; thresholds validated per kind', async (t) => {
  const { app, call } = await alertsApp(t)
  const created = await call('POST', '/api/alerts/rules', { kind: 'peers_below', threshold: 3 })
  t.equal(created.statusCode, 201, created.raw)
  t.match(created.body, { kind: 'peers_below', threshold: 3, unit: 'peers', enabled: true, firing: false })
  t.equal(created.body.description, 'Fewer than 3 peers')
  const ibd = await call('POST', '/api/alerts/rules', { kind: 'initial_download' })
  t.equal(ibd.statusCode, 201, ibd.raw)
  t.equal(ibd.body.threshold, null)

  for (const [body, pattern] of [
    [{ kind: 'peers_below', threshold: 0 }, /threshold.*at least 1/],
    [{ kind: 'peers_below', threshold: 2.5 }, /threshold.*whole number/],
    [{ kind: 'peers_below' }, /threshold.*needs a threshold/],
    [{ kind: 'node_unreachable', threshold: -1 }, /threshold/],
    [{ kind: 'node_unreachable', threshold: 10_081 }, /threshold.*at most 10080/],
    [{ kind: 'tip_stalled', threshold: 0 }, /threshold.*at least 1/],
    [{ kind: 'mempool_above', threshold: 0 }, /threshold.*above 0/],
    [{ kind: 'wallet_balance_below', threshold: 21_000_001 }, /threshold/],
    [{ kind: 'initial_download', threshold: 5 }, /threshold.*takes no threshold/],
    [{ kind: 'peers_below', threshold: '3' }, /threshold/],
    [{ kind: 'disk_full', threshold: 3 }, /kind/],
    [{ kind: 'peers_below', threshold: 3, extra: true }, /extra|additional/],
  ] as const) {
    const res = await call('POST', '/api/alerts/rules', body)
    t.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.raw}`)
    t.match(res.body.detail, pattern, JSON.stringify(body))
  }

  const changed = await call('PUT', `/api/alerts/rules/${created.body.id}`, { threshold: 5, enabled: false })
  t.equal(changed.statusCode, 200, changed.raw)
  t.match(changed.body, { threshold: 5, enabled: false, description: 'Fewer than 5 peers' })
  t.equal((await call('PUT', `/api/alerts/rules/${created.body.id}`, { threshold: 0 })).statusCode, 422)
  t.equal((await call('PUT', '/api/alerts/rules/999999', { enabled: true })).statusCode, 404)
  t.equal((await call('PUT', '/api/alerts/rules/abc', { enabled: true })).statusCode, 422)
  const list = await call('GET', '/api/alerts/rules')
  t.same(
    list.body.rules.map((r: { id: number }) => r.id),
    [created.body.id, ibd.body.id],
  )
  t.equal((await call('DELETE', `/api/alerts/rules/${ibd.body.id}`)).statusCode, 204)
  t.equal((await call('DELETE', `/api/alerts/rules/${ibd.body.id}`)).statusCode, 404)

  const audit = await app.audit.recent(20)
  t.same(
    audit
      .filter((a) => a.kind === 'alert')
      .map((a) => a.name)
      .reverse(),
    ['create-rule', 'create-rule', 'update-rule', 'delete-rule'],
  )
  t.ok(audit.every((a) => a.kind !== 'alert' || a.username === 'admin'))
})

test('rules and targets are bounded in number', async (t) => {
  const { call } = await alertsApp(t)
  for (let i = 0; i < 50; i++) t.equal((await call('POST', '/api/alerts/rules', { kind: 'initial_download' })).statusCode, 201)
  const over = await call('POST', '/api/alerts/rules', { kind: 'initial_download' })
  t.equal(over.statusCode, 409)
  t.match(over.body.detail, /At most 50/)
  for (let i = 0; i < 20; i++) {
    const res = await call('POST', '/api/alerts/targets', { name: `t${i}`, format: 'json', url: 'http://127.0.0.1:9/x' })
    t.equal(res.statusCode, 201)
  }
  t.equal((await call('POST', '/api/alerts/targets', { name: 'x', format: 'json', url: 'http://127.0.0.1:9/x' })).statusCode, 409)
})

test('targets: the URL is validated, stored encrypted and always masked; a masked URL in an update keeps it', async (t) => {
  const { app, call } = await alertsApp(t)
  const secretUrl = 'https://hooks.example.test/services/T000/B000/SECRET-TOKEN-xyz'
  const created = await call('POST', '/api/alerts/targets', { name: 'Ops Slack', format: 'slack', url: secretUrl })
  t.equal(created.statusCode, 201, created.raw)
  t.same(
    { url: created.body.url, url_hint: created.body.url_hint, format: created.body.format, enabled: created.body.enabled },
    { url: '********', url_hint: 'https://hooks.example.test', format: 'slack', enabled: true },
  )
  t.notOk(created.raw.includes('SECRET-TOKEN'), 'the create answer does not echo the URL')
  const listed = await call('GET', '/api/alerts/targets')
  t.notOk(listed.raw.includes('SECRET-TOKEN'))
  t.equal(listed.body.targets[0].url, '********')
  const stored = await app.db.query<{ url_enc: string }>('SELECT url_enc FROM alert_targets')
  t.notOk(stored.rows[0].url_enc.includes('SECRET-TOKEN'), 'encrypted at rest')
  t.match(stored.rows[0].url_enc, /^v1:/)

  for (const url of ['ftp://example.test/x', 'javascript:alert(1)', 'not a url', 'file:///etc/passwd', 'http://']) {
    const res = await call('POST', '/api/alerts/targets', { name: 'x', format: 'json', url })
    t.equal(res.statusCode, 422, url)
    t.match(res.body.detail, /'url'/)
    t.notOk(res.raw.includes(url) && url.length > 8, 'the bad URL is not echoed')
  }
  t.equal((await call('POST', '/api/alerts/targets', { name: 'x', format: 'teams', url: secretUrl })).statusCode, 422)
  t.equal((await call('POST', '/api/alerts/targets', { name: '', format: 'json', url: secretUrl })).statusCode, 422)
  t.equal((await call('POST', '/api/alerts/targets', { name: 'a\nb', format: 'json', url: secretUrl })).statusCode, 422)

  const receiver = await startWebhookReceiver()
  t.teardown(() => receiver.close())
  // Renamed with the mask: the stored URL stays (the test goes to the old, unreachable host).
  const renamed = await call('PUT', `/api/alerts/targets/${created.body.id}`, { name: 'Ops', url: '********' })
  t.equal(renamed.statusCode, 200, renamed.raw)
  t.equal(renamed.body.url_hint, 'https://hooks.example.test')
  const moved = await call('PUT', `/api/alerts/targets/${created.body.id}`, { url: `${receiver.origin}/hook`, format: 'json' })
  t.equal(moved.body.url_hint, receiver.origin)
  const tested = await call('POST', `/api/alerts/targets/${created.body.id}/test`)
  t.equal(tested.statusCode, 200, tested.raw)
  t.match(tested.body, { ok: true, status: 200, error: null })
  t.equal(receiver.requests.length, 1)
  t.equal(receiver.requests[0].path, '/hook')
  t.match(JSON.parse(receiver.requests[0].body), { event: 'test', title: 'Test notification', rule: null })

  t.equal((await call('POST', '/api/alerts/targets/999/test')).statusCode, 404)
  t.equal((await call('DELETE', `/api/alerts/targets/${created.body.id}`)).statusCode, 204)
  t.equal((await call('GET', '/api/alerts/targets')).body.targets.length, 0)
  t.equal((await call('GET', '/api/alerts/deliveries')).body.deliveries.length, 0, 'its deliveries went with it')
})

test('writes need a session and a same-origin request', async (t) => {
  const { app, cookie } = await alertsApp(t)
  const anonymous = await app.inject({ method: 'POST', url: '/api/alerts/rules', payload: { kind: 'initial_download' } })
  t.equal(anonymous.statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/api/alerts/deliveries' })).statusCode, 401)
  const foreign = await app.inject({
    method: 'POST',
    url: '/api/alerts/targets',
    payload: { name: 'x', format: 'json', url: 'http://127.0.0.1:9/' },
    headers: { cookie, origin: 'https://evil.example' },
  })
  t.equal(foreign.statusCode, 403)
  t.equal((await app.db.query('SELECT 1 FROM alert_targets')).rows.length, 0)
})

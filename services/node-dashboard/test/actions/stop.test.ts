import { startNodeSimulator } from '@app/node-simulator'
import { freePort } from '@app/testing'
import { test } from 'tap'
import { build } from '../helper.ts'
import { actionsApp } from './helper.ts'

test('every action route answers 401 without a session, before doing anything', async (t) => {
  const app = await build(t)
  const sim = await startNodeSimulator()
  t.teardown(() => sim.close())
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: 'u', rpc_password: 'p' })
  for (const action of ['stop', 'start', 'restart']) {
    const res = await app.inject({ method: 'POST', url: `/api/actions/${action}` })
    t.equal(res.statusCode, 401, action)
    t.type(res.json().detail, 'string')
  }
  t.equal(sim.requests.length, 0, 'the node was never called')
  const { rows } = await app.db.query('SELECT count(*)::int AS n FROM node_actions')
  t.equal(rows[0].n, 0, 'nothing ran, so nothing to audit')
})

test('stop calls RPC stop and reports the node reply', async (t) => {
  const { app, post, configure } = await actionsApp(t)
  const sim = await startNodeSimulator({ wallets: ['w1', 'w2'] })
  t.teardown(() => sim.close())
  await configure({ rpc_url: sim.url, rpc_username: 'u', rpc_password: 'p', rpc_wallet: 'w1' })
  const res = await post('stop')
  t.equal(res.statusCode, 200)
  t.match(res.body, { action: 'stop', ok: true, rpc: { method: 'stop', ok: true, result: 'Bitcoin Core stopping' } })
  t.notOk('ssh' in res.body, 'no SSH for stop')
  t.ok(Date.parse(res.body.finished_at) >= Date.parse(res.body.started_at))
  await sim.closed
  t.equal(sim.requests.at(-1)?.path, '/', 'stop goes to the root endpoint, not the wallet')
  const { rows } = await app.db.query<{ action: string; ok: boolean; detail: string; username: string }>(
    'SELECT action, ok, detail, username FROM node_actions',
  )
  t.same(rows, [{ action: 'stop', ok: true, detail: 'Bitcoin Core stopping', username: 'admin' }], 'audited')
  const audit = await app.audit.recent()
  t.match(audit[0], { kind: 'action', name: 'stop', ok: true })
})

test('stop failures: 400 without rpc_url, 502 when unreachable or refused', async (t) => {
  const { app, post, configure } = await actionsApp(t)
  const missing = await post('stop')
  t.equal(missing.statusCode, 400)
  t.match(missing.body.detail, 'rpc_url')

  await configure({ rpc_url: `http://127.0.0.1:${await freePort()}/`, rpc_username: 'u', rpc_password: 'p' })
  const down = await post('stop')
  t.equal(down.statusCode, 502)
  t.match(down.body, { action: 'stop', ok: false, rpc: { ok: false, node_was_running: false } })
  t.match(down.body.detail, /unreachable/i)

  const sim = await startNodeSimulator({ password: 'other' })
  t.teardown(() => sim.close())
  await configure({ rpc_url: sim.url })
  const refused = await post('stop')
  t.equal(refused.statusCode, 502)
  t.match(refused.body.detail, /authentication failed/i)
  t.notMatch(JSON.stringify(refused.body), '"p"', 'no password in the answer')
  const { rows } = await app.db.query<{ status_code: number }>('SELECT status_code FROM node_actions ORDER BY id')
  t.same(
    rows.map((r) => r.status_code),
    [400, 502, 502],
    'failures are audited too',
  )
})

test('one action at a time: a concurrent action gets 409, on this and on another instance', async (t) => {
  const { app, cookie, post, configure } = await actionsApp(t)
  // Each RPC call takes 3 s, so the first stop is still running when the others arrive.
  const sim = await startNodeSimulator({ latencyMs: 3000 })
  t.teardown(() => sim.close())
  await configure({ rpc_url: sim.url, rpc_username: 'u', rpc_password: 'p' })
  // A second instance on the same database (ready before the race starts).
  const other = await build(t, { shareWith: app })
  const first = post('stop')
  // Once the node has the stop request, the first action surely holds the lock.
  while (sim.requests.length === 0) await new Promise((r) => setTimeout(r, 20))
  const second = await post('start')
  t.equal(second.statusCode, 409)
  t.match(second.body, { detail: /Another node action \(stop, started .+\) is still running/ })
  t.same(Object.keys(second.body), ['detail'])

  const elsewhere = await other.inject({ method: 'POST', url: '/api/actions/restart', headers: { cookie } })
  t.equal(elsewhere.statusCode, 409, 'the lock is shared through the database')

  t.equal((await first).statusCode, 200, 'the first action finishes normally')
  const { rows } = await app.db.query<{ action: string; status_code: number }>(
    'SELECT action, status_code FROM node_actions ORDER BY id',
  )
  t.same(rows, [
    { action: 'stop', status_code: 200 },
    { action: 'start', status_code: 409 },
    { action: 'restart', status_code: 409 },
  ])
  await sim.closed
  const again = await post('stop')
  t.equal(again.statusCode, 502, 'the lock was released (the node is gone now)')
})

test('a stop reply of an unexpected shape is a 502 naming stop, recorded as failed', async (t) => {
  const { startTamperedNode } = await import('../rpc/tampered-node.ts')
  const { app, post, configure } = await actionsApp(t)
  const sim = await startNodeSimulator()
  t.teardown(() => sim.close())
  const node = await startTamperedNode(t, sim.url)
  node.tamper('stop', () => ({ stopping: ['x'.repeat(10)] }))
  await configure({ rpc_url: node.url, rpc_username: 'u', rpc_password: 'p' })
  const res = await post('stop')
  t.equal(res.statusCode, 502)
  t.match(res.body.detail, /^Node answered stop with an unexpected shape/)
  t.match(res.body.rpc, { method: 'stop', ok: false, result: null })
  t.notMatch(JSON.stringify(res.body), 'xxxxxxxxxx', 'the reply is not echoed')
  const { rows } = await app.db.query<{ ok: boolean }>('SELECT ok FROM node_actions')
  t.same(rows, [{ ok: false }])
})

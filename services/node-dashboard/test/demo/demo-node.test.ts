import { rpc, startNodeSimulator } from '@app/node-simulator'
import { eventually } from '@app/testing'
import t from 'tap'
import { demoNodeEnabled } from '../../src/demo/plugin.ts'
import { build, login } from '../helper.ts'

const { test } = t

/** A logged-in dashboard on a fresh database with no node settings saved. */
async function demoApp(t: Parameters<typeof build>[0], env: Record<string, string>) {
  const app = await build(t, { env: { RPC_TIMEOUT_MS: '3000', METRICS_SAMPLE_SECONDS: '86400', ...env } })
  const cookie = await login(app)
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } })
  const post = (url: string, payload?: object) => app.inject({ method: 'POST', url, headers: { cookie }, payload })
  const demoUrl = () => app.demoNode.current()?.connection().rpc_url ?? null
  return { app, cookie, get, post, demoUrl }
}

/** Whether anything still listens at `url`. */
const listening = (url: string) =>
  fetch(url, { method: 'POST', signal: AbortSignal.timeout(3000) }).then(
    () => true,
    () => false,
  )

test('DEMO_NODE: auto is on with the embedded database and off with DATABASE_URL', async (t) => {
  t.equal(demoNodeEnabled({ DEMO_NODE: 'auto' }), true)
  t.equal(demoNodeEnabled({ DEMO_NODE: 'auto', DATABASE_URL: 'postgres://db/x' }), false)
  t.equal(demoNodeEnabled({ DEMO_NODE: 'on', DATABASE_URL: 'postgres://db/x' }), true)
  t.equal(demoNodeEnabled({ DEMO_NODE: 'off' }), false)
})

test('the default start (DEMO_NODE unset) watches the demo node only on the embedded database', async (t) => {
  const { app, get, demoUrl } = await demoApp(t, { DEMO_NODE: 'auto' })
  const embedded = !app.config.DATABASE_URL
  const summary = await get('/api/dashboard/summary')
  const settings = (await get('/api/settings')).json()
  t.equal(settings.demo_node, embedded)
  if (embedded) {
    t.equal(summary.statusCode, 200, summary.body)
    t.equal(summary.json().demo_node, true)
    t.match(demoUrl(), /^http:\/\/127\.0\.0\.1:\d+\/$/)
  } else {
    t.equal(summary.statusCode, 400, 'with DATABASE_URL the dashboard waits for settings as before')
    t.equal(demoUrl(), null)
  }
})

test('with no settings saved, every screen answers from the demo node; its credentials stay inside', async (t) => {
  const { app, get, post, demoUrl } = await demoApp(t, { DEMO_NODE: 'on' })
  const url = demoUrl()!
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/, 'loopback, a port of its own')
  const { rpc_username, rpc_password } = app.demoNode.current()!.connection()
  t.ok(rpc_password.length >= 24, 'a random password of its own')
  t.equal((await rpc(url, 'getblockcount', [], { auth: 'u:p' })).status, 401, "the simulator's test credentials do not open it")

  const summary = await get('/api/dashboard/summary')
  t.equal(summary.statusCode, 200, summary.body)
  const body = summary.json()
  t.match(body, {
    chain: { chain: 'regtest', blocks: Number },
    network: { subversion: '/Satoshi:30.0.0/', connections: 8 },
    mempool: { size: Number },
    wallet: { walletname: 'demo', balances: { mine: { trusted: Number } } },
    demo_node: true,
  })

  const settings = await get('/api/settings')
  t.match(settings.json(), { rpc_url: '', rpc_username: '', rpc_password: '', rpc_wallet: '', demo_node: true })
  const call = await post('/api/rpc/call', { method: 'getblockcount' })
  t.equal(call.statusCode, 200, call.body)
  t.equal(call.json().result, body.chain.blocks)
  const help = await get('/api/rpc/help/getblockcount')
  t.equal(help.statusCode, 200, 'the explorer reads the real help texts')
  const peers = await post('/api/rpc/call', { method: 'getpeerinfo' })
  t.equal(peers.json().result.length, 8, 'peers to show')

  for (const answer of [summary, settings, call, peers, await get('/api/rpc/commands')]) {
    t.notOk(answer.body.includes(rpc_password), 'no answer carries the demo password')
    t.notOk(answer.body.includes(rpc_username), 'nor its user')
  }
  t.notOk(settings.body.includes(url), 'the settings do not show its address')

  await app.sampler.sampleOnce()
  const history = await get('/api/dashboard/history/5m')
  t.equal(history.statusCode, 200, history.body)
  t.ok(JSON.stringify(history.json()).includes(String(body.chain.blocks)), 'the sampler records the demo node')
})

test('stop, start and restart work on the demo node, in process', async (t) => {
  const { app, get, post, demoUrl } = await demoApp(t, { DEMO_NODE: 'on' })
  const url = demoUrl()!
  const before = (await get('/api/dashboard/summary')).json().chain.blocks as number

  const again = await post('/api/actions/start')
  t.equal(again.statusCode, 502, 'like bitcoind, a second node cannot start while it runs')
  t.match(again.json().detail, /Cannot obtain a lock on directory/)

  const stop = await post('/api/actions/stop')
  t.equal(stop.statusCode, 200, stop.body)
  t.match(stop.json(), { ok: true, rpc: { method: 'stop', result: 'Bitcoin Core stopping' } })
  t.equal(await listening(url), false, 'its RPC port is closed')
  const down = await get('/api/dashboard/summary')
  t.equal(down.statusCode, 502)
  t.match(down.json().detail, /unreachable/)
  t.equal((await get('/api/settings')).json().demo_node, true, 'a stopped demo node is still the one watched')
  const early = await post('/api/actions/start')
  t.equal(early.statusCode, 502, 'like bitcoind, it holds its lock a moment after the port closed')
  await eventually(() => !app.demoNode.current()?.isRunning(), { timeoutMs: 10_000 })

  const start = await post('/api/actions/start')
  t.equal(start.statusCode, 200, start.body)
  t.match(start.json(), { ok: true, ssh: { exit_code: 0, stdout: 'Bitcoin Core starting\n', command: /demo node/ } })
  t.equal(demoUrl(), url, 'back on the same port')
  const up = await get('/api/dashboard/summary')
  t.equal(up.statusCode, 200, up.body)
  t.ok(up.json().chain.blocks >= before, 'it kept its chain')

  const restart = await post('/api/actions/restart')
  t.equal(restart.statusCode, 200, restart.body)
  t.match(restart.json(), { ok: true, rpc: { node_was_running: true }, ssh: { exit_code: 0 } })
  t.ok(restart.json().ssh.attempts > 1, 'restart waited for the lock')
  const after = await get('/api/dashboard/summary')
  t.equal(after.statusCode, 200, after.body)
})

test('saving real settings switches the demo node off before the save answers', async (t) => {
  const { app, cookie, get, demoUrl } = await demoApp(t, { DEMO_NODE: 'on' })
  const demo = demoUrl()!
  const real = await startNodeSimulator({ password: 'real-node-secret', peers: 2 })
  t.teardown(() => real.close())
  const put = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie },
    payload: { rpc_url: real.url, rpc_username: real.user, rpc_password: 'real-node-secret' },
  })
  t.equal(put.statusCode, 200, put.body)
  t.equal(put.json().demo_node, false)
  t.equal(demoUrl(), null)
  t.equal(await listening(demo), false, 'the demo node was shut down')
  const summary = await get('/api/dashboard/summary')
  t.equal(summary.statusCode, 200, summary.body)
  t.match(summary.json(), { network: { connections: 2 }, demo_node: false }, 'the real node answers')
  t.ok(real.requests.length > 0)

  const stop = await app.inject({ method: 'POST', url: '/api/actions/start', headers: { cookie } })
  t.equal(stop.statusCode, 400, 'start goes over SSH again, which needs its settings')
  t.match(stop.json().detail, /ssh_host/)
})

test('closing the app shuts the demo node down', async (t) => {
  const app = await build(t, { env: { DEMO_NODE: 'on' } })
  const url = app.demoNode.current()!.connection().rpc_url
  t.equal(await listening(url), true)
  await app.close()
  t.equal(await listening(url), false, 'no port left open')
  t.equal(app.demoNode.current(), null)
})

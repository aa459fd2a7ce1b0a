import { type NodeSimulatorOptions, startNodeSimulator } from '@app/node-simulator'
import { freePort } from '@app/testing'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { build, login } from '../helper.ts'

const PASSWORD = 'summary-rpc-Secret'

// One instance for the file; each test points it at its own simulated node.
// The sampler timer is pushed out of the way: the sampler test drives it by hand.
const app = await build(t, { env: { RPC_TIMEOUT_MS: '3000', METRICS_SAMPLE_SECONDS: '86400' } })
const cookie = await login(app)
const { test } = t

async function withNode(t: Test, simOptions: NodeSimulatorOptions = {}) {
  const sim = await startNodeSimulator({ password: PASSWORD, ...simOptions })
  t.teardown(() => sim.close())
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: PASSWORD, rpc_wallet: '' })
  const summary = () => app.inject({ method: 'GET', url: '/api/dashboard/summary', headers: { cookie } })
  return { sim, app, cookie, summary }
}

test('summary groups chain, network, mempool, mining, uptime, wallet and updated_at', async (t) => {
  const { sim, summary } = await withNode(t)
  const res = await summary()
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const body = res.json()
  t.match(body, {
    chain: { chain: 'regtest', blocks: Number, headers: Number, bestblockhash: String, verificationprogress: Number },
    network: { subversion: '/Satoshi:30.0.0/', connections: Number, totalbytesrecv: Number, totalbytessent: Number },
    mempool: { size: Number, bytes: Number, usage: Number },
    mining: { networkhashps: Number },
    uptime: Number,
    wallet: null,
    wallet_error: null,
  })
  t.ok(Math.abs(Date.parse(body.updated_at) - Date.now()) < 10_000)
  t.notMatch(res.body, PASSWORD)
  t.equal(sim.requests.length, 2, 'one JSON-RPC batch and getpeerinfo on its own')
  const batch = sim.requests.find((r) => r.body.startsWith('['))
  const calls = JSON.parse(batch?.body ?? '[]') as { method: string; params: unknown[] }[]
  t.same([...new Set(calls.map((c) => c.method))].sort(), [
    'estimatesmartfee',
    'getblockchaininfo',
    'getmempoolinfo',
    'getmininginfo',
    'getnettotals',
    'getnetworkinfo',
    'uptime',
  ])
  t.same(
    calls.filter((c) => c.method === 'estimatesmartfee').map((c) => c.params),
    [[1], [3], [6], [12], [144]],
    'fee estimates in the same batch',
  )
  t.ok(sim.requests.some((r) => JSON.parse(r.body).method === 'getpeerinfo'))

  await app.settingsCache.update({ rpc_wallet: 'w1' })
  const withWallet = (await summary()).json()
  t.match(withWallet.wallet, { walletname: 'w1', balances: { mine: { trusted: Number } } })
  t.ok(sim.requests.some((r) => r.path === '/wallet/w1' && r.body.includes('"getbalances"')))

  await app.settingsCache.update({ rpc_wallet: 'nosuch' })
  const broken = (await summary()).json()
  t.equal(broken.wallet, null)
  t.match(broken.wallet_error, /-18.*Requested wallet does not exist/)
  t.equal(broken.chain.chain, 'regtest', 'a wallet problem does not hide the rest')
})

test('peers are counted by direction and by network, every network present', async (t) => {
  const { summary } = await withNode(t, { peers: 5 })
  const body = (await summary()).json()
  t.equal(body.peers_error, null)
  t.same(body.peers, {
    total: 5,
    inbound: 2,
    outbound: 3,
    by_network: {
      ipv4: { inbound: 0, outbound: 0 },
      ipv6: { inbound: 0, outbound: 0 },
      onion: { inbound: 0, outbound: 0 },
      i2p: { inbound: 0, outbound: 0 },
      cjdns: { inbound: 0, outbound: 0 },
      not_publicly_routable: { inbound: 2, outbound: 3 },
      other: { inbound: 0, outbound: 0 },
    },
  })
  t.equal(body.peers.total, body.network.connections, 'the same peers getnetworkinfo counts')
})

test('fee estimates: the node\'s "Insufficient data" on a fresh node, then BTC/kvB and sat/vB per target', async (t) => {
  const { sim, summary } = await withNode(t)
  const fresh = (await summary()).json()
  t.same(
    fresh.fee_estimates,
    [1, 3, 6, 12, 144].map((conf_target) => ({
      conf_target,
      feerate: null,
      sat_per_vb: null,
      blocks: 0,
      errors: ['Insufficient data or no feerate found'],
    })),
  )
  for (let i = 0; i < 20; i++) {
    sim.addTransactions(2)
    sim.mine(1)
  }
  const estimates = (await summary()).json().fee_estimates as {
    conf_target: number
    feerate: number
    sat_per_vb: number
    blocks: number
    errors: string[]
  }[]
  t.same(
    estimates.map((e) => [e.conf_target, e.blocks]),
    [
      [1, 2],
      [3, 3],
      [6, 6],
      [12, 10],
      [144, 10],
    ],
    'the node clamps the targets (1 to 2, beyond half the blocks it saw to 10)',
  )
  for (const e of estimates) {
    t.same(e.errors, [])
    t.equal(e.sat_per_vb, Math.round(e.feerate * 1e8) / 1000, `sat/vB of target ${e.conf_target}`)
  }
  t.equal(estimates[2].sat_per_vb, 13.333, '6 blocks: 0.00013333 BTC/kvB is 13.333 sat/vB')
})

test('uptime is null on a fork without the method', async (t) => {
  const { summary } = await withNode(t, { fork: true })
  const body = (await summary()).json()
  t.equal(body.uptime, null)
  t.match(body.network.subversion, /Shibetoshi/)
})

test('a summary is one batch per endpoint in flight together; concurrent requests share one round', async (t) => {
  // Each call is answered LATENCY ms after it arrives: calls made one after another would arrive at least that far apart.
  const LATENCY = 400
  const { sim, summary } = await withNode(t, { latencyMs: LATENCY })
  await app.settingsCache.update({ rpc_wallet: 'w1' })
  const results = await Promise.all([summary(), summary(), summary(), summary()])
  for (const res of results) t.equal(res.statusCode, 200)
  t.same(sim.requests.map((r) => r.path).sort(), ['/', '/', '/wallet/w1'], 'four requests, one round: three calls')
  const times = sim.requests.map((r) => r.at)
  const spread = Math.max(...times) - Math.min(...times)
  t.ok(spread < LATENCY, `all calls were in flight together, not one after another (spread ${spread} ms)`)
  t.same(new Set(results.map((r) => r.json().updated_at)).size, 1)
})

test('each node failure kind answers 502 with a detail saying what happened, never the password', async (t) => {
  const { sim, summary } = await withNode(t)
  const expect = async (detail: RegExp, label: string) => {
    const res = await summary()
    t.equal(res.statusCode, 502, label)
    t.match(res.json(), { detail }, label)
    t.notMatch(res.body, PASSWORD, label)
  }
  sim.setWarmup('Loading block index…')
  await expect(/^Node is starting \(warm-up\): Loading block index…$/, 'warm-up')
  sim.setWarmup(null)
  sim.setWorkQueueFull(true)
  await expect(/busy.*HTTP 503/, 'work queue')
  sim.setWorkQueueFull(false)
  sim.setLatency(4000)
  await expect(/timed out after 3000 ms/, 'timeout')
  sim.setLatency(0)
  await app.settingsCache.update({ rpc_password: 'wrong-password' })
  await expect(/authentication failed/, 'auth')
  await app.settingsCache.update({ rpc_url: `http://127.0.0.1:${await freePort()}/` })
  await expect(/unreachable.*connection refused/, 'unreachable')
})

test('no rpc_url: 400 naming it', async (t) => {
  await app.settingsCache.update({ rpc_url: '' })
  const res = await app.inject({ method: 'GET', url: '/api/dashboard/summary', headers: { cookie } })
  t.equal(res.statusCode, 400)
  t.match(res.json().detail, /rpc_url/)
})

test('the sampler records metrics while settings are complete; one instance samples at a time', async (t) => {
  const { sim } = await withNode(t, { wallets: ['w1'] })
  await app.settingsCache.update({ rpc_wallet: 'w1' })
  const other = await build(t, { shareWith: app as FastifyInstance, env: { METRICS_SAMPLE_SECONDS: '86400' } })
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  t.equal(await other.sampler.sampleOnce(), 'not-leader', 'the lease is held by the first instance')
  sim.mine(3)
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  const latest = app.sampler.latest()
  t.match(latest?.summary, { chain: { blocks: Number }, peers: { total: Number, by_network: { ipv4: Object } } })
  t.equal(latest?.metrics.height, latest?.summary.chain.blocks, 'the latest round holds the row it stored')
  t.equal(other.sampler.latest(), null, 'an instance that did not sample has no round')
  const { rows } = await app.db.query<Record<string, number>>('SELECT * FROM metrics ORDER BY sampled_at')
  t.equal(rows.length, 2)
  t.equal(Number(rows[1].height), Number(rows[0].height) + 3)
  t.type(rows[0].mempool_tx, 'number')
  t.ok(Number(rows[0].wallet_balance) > 0, 'wallet balance recorded')
  t.equal(rows[0].fee_rate_6, null, 'no estimate on a fresh node: null, not 0')
  for (let i = 0; i < 20; i++) {
    sim.addTransactions(1)
    sim.mine(1)
  }
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  const { rows: fees } = await app.db.query<Record<string, number>>(
    'SELECT fee_rate_1, fee_rate_3, fee_rate_6, fee_rate_12, fee_rate_144 FROM metrics ORDER BY sampled_at DESC LIMIT 1',
  )
  t.same(
    fees[0],
    { fee_rate_1: 20, fee_rate_3: 16.666, fee_rate_6: 13.333, fee_rate_12: 11.818, fee_rate_144: 11.818 },
    'sat/vB per target (23 blocks seen: 12 and 144 clamp to 11)',
  )
  await app.db.query('DELETE FROM metrics WHERE fee_rate_6 IS NOT NULL')

  await app.db.query("INSERT INTO metrics (sampled_at, height) VALUES (now() - interval '40 days', 1)")
  await app.sampler.sampleOnce()
  const old = await app.db.query("SELECT 1 FROM metrics WHERE sampled_at < now() - interval '30 days'")
  t.equal(old.rowCount, 0, 'samples older than HISTORY_RETENTION_DAYS are pruned')

  await app.sampler.stop()
  t.equal(await other.sampler.sampleOnce(), 'sampled', 'a stopped leader hands over at once')
  await app.settingsCache.update({ rpc_url: '' })
  // The other instance learns of the change by NOTIFY (asynchronously).
  let outcome = ''
  for (let i = 0; i < 50 && outcome !== 'incomplete-settings'; i++) {
    outcome = await other.sampler.sampleOnce()
    if (outcome !== 'incomplete-settings') await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(outcome, 'incomplete-settings', 'a settings change reaches the other instance')
})

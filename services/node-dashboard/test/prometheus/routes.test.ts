import { Writable } from 'node:stream'
import { ConfigError, loadConfig } from '@app/common'
import { startNodeSimulator } from '@app/node-simulator'
import { createTestDatabase } from '@app/testing'
import { parseExposition, sampleValue } from '@app/testing/prometheus'
import t from 'tap'
import { buildApp } from '../../src/app.ts'
import { configSchema } from '../../src/config.ts'
import { build, login } from '../helper.ts'

const TOKEN = `metrics-token-${process.pid}-${Date.now().toString(36)}`
const RPC_PASSWORD = 'prometheus-rpc-Secret'
const bearer = (token = TOKEN) => ({ authorization: `Bearer ${token}` })
const { test } = t

// The sampler timer is pushed out of the way: each test drives the rounds by hand.
const env = { METRICS_TOKEN: TOKEN, METRICS_SAMPLE_SECONDS: '86400' }

test('without METRICS_TOKEN the route is off: 404 exactly like an unknown path', async (t) => {
  const app = await build(t, { env: { METRICS_SAMPLE_SECONDS: '86400' } })
  const metrics = await app.inject({ url: '/metrics', headers: bearer() })
  const unknown = await app.inject({ url: '/no-such-path', headers: bearer() })
  t.equal(metrics.statusCode, 404)
  t.same(metrics.json(), { detail: unknown.json().detail.replace('/no-such-path', '/metrics') })
  t.equal(metrics.headers['content-type'], unknown.headers['content-type'])
  t.equal(metrics.headers['www-authenticate'], undefined)
})

test('METRICS_TOKEN is a printable token of at least 16 characters', async (t) => {
  for (const bad of ['short', 'has a space in the middle of it', 'tab\there-and-long-enough']) {
    t.throws(() => loadConfig(configSchema, { METRICS_TOKEN: bad }), ConfigError, JSON.stringify(bad))
  }
  t.equal(loadConfig(configSchema, { METRICS_TOKEN: '' }).METRICS_TOKEN, undefined, 'empty is absent')
})

test('a missing or wrong bearer token is 401 with WWW-Authenticate: Bearer; the right one gets the text format', async (t) => {
  const app = await build(t, { env })
  const cookie = await login(app)
  const cases: [string, Record<string, string>, string][] = [
    ['no header', {}, 'Bearer realm="metrics"'],
    ['a session is not enough', { cookie }, 'Bearer realm="metrics"'],
    ['wrong token', bearer(`${TOKEN}x`), 'Bearer realm="metrics", error="invalid_token"'],
    ['a prefix of the token', bearer(TOKEN.slice(0, -1)), 'Bearer realm="metrics", error="invalid_token"'],
    [
      'basic scheme',
      { authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` },
      'Bearer realm="metrics", error="invalid_token"',
    ],
    ['empty bearer', { authorization: 'Bearer ' }, 'Bearer realm="metrics", error="invalid_token"'],
  ]
  for (const [name, headers, challenge] of cases) {
    const res = await app.inject({ url: '/metrics', headers })
    t.equal(res.statusCode, 401, name)
    t.equal(res.headers['www-authenticate'], challenge, name)
    t.same(res.json(), { detail: 'A valid metrics bearer token is required.' }, name)
    t.notMatch(res.body, TOKEN, name)
  }
  for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer  ${TOKEN} `]) {
    const res = await app.inject({ url: '/metrics', headers: { authorization } })
    t.equal(res.statusCode, 200, JSON.stringify(authorization))
    t.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
    t.equal(res.headers['cache-control'], 'no-store')
    const samples = parseExposition(res.body)
    t.ok(samples.length > 0, 'parses as the exposition format')
    t.equal(sampleValue(samples, 'node_dashboard_sampler_runs_total', { outcome: 'sampled' }), 0, 'counters start at 0')
    t.ok(sampleValue(samples, 'process_resident_memory_bytes')! > 0, 'process metrics')
    t.equal(sampleValue(samples, 'bitcoind_up'), undefined, 'no node state before a round')
  }
})

test("node values come from the sampler's latest round: a scrape never calls the node", async (t) => {
  const app = await build(t, { env })
  const sim = await startNodeSimulator({ password: RPC_PASSWORD, peers: 3, wallets: ['w1'] })
  t.teardown(() => sim.close())
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD, rpc_wallet: 'w1' })
  const scrape = async () => {
    const res = await app.inject({ url: '/metrics', headers: bearer() })
    t.equal(res.statusCode, 200)
    return parseExposition(res.body)
  }
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  const afterRound = sim.requests.length
  t.equal(afterRound, 3, 'one round: the node batch, getpeerinfo and the wallet batch')
  const first = await scrape()
  const heightThen = sim.chain.height
  t.equal(sampleValue(first, 'bitcoind_up'), 1)
  t.equal(sampleValue(first, 'bitcoind_blocks'), heightThen)
  t.equal(sampleValue(first, 'bitcoind_headers'), heightThen)
  t.equal(sampleValue(first, 'bitcoind_verification_progress'), 1)
  t.equal(sampleValue(first, 'bitcoind_initial_block_download'), 0)
  t.ok(sampleValue(first, 'bitcoind_uptime_seconds')! >= 0)
  t.ok(sampleValue(first, 'bitcoind_sample_timestamp_seconds')! > Date.now() / 1000 - 60)
  t.type(sampleValue(first, 'bitcoind_mempool_transactions'), 'number')
  t.type(sampleValue(first, 'bitcoind_mempool_vbytes'), 'number')
  t.type(sampleValue(first, 'bitcoind_mempool_usage_bytes'), 'number')
  t.ok(sampleValue(first, 'bitcoind_mempool_max_bytes')! > 0)
  t.type(sampleValue(first, 'bitcoind_received_bytes_total'), 'number')
  t.type(sampleValue(first, 'bitcoind_sent_bytes_total'), 'number')
  const balances = (await app.rpc.call<{ mine: { trusted: number } }>('getbalances', [], { wallet: 'w1' })).mine
  t.equal(sampleValue(first, 'bitcoind_wallet_balance_btc', { state: 'trusted' }), balances.trusted)
  const peerInfo = await app.rpc.call<{ inbound: boolean; network: string }[]>('getpeerinfo', [], { wallet: '' })
  t.equal(peerInfo.length, 3, 'the simulated node has peers')
  const peerSeries = first.filter((s) => s.name === 'bitcoind_peers')
  t.equal(peerSeries.length, 14, 'every direction and network pair is present')
  for (const direction of ['inbound', 'outbound']) {
    for (const network of ['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns', 'not_publicly_routable', 'other']) {
      const expected = peerInfo.filter((p) => p.inbound === (direction === 'inbound') && p.network === network).length
      t.equal(sampleValue(first, 'bitcoind_peers', { direction, network }), expected, `${direction} ${network}`)
    }
  }
  const networkInfo = await app.rpc.call<{ connections_in: number; connections_out: number }>('getnetworkinfo', [], {
    wallet: '',
  })
  t.equal(sampleValue(first, 'bitcoind_connections', { direction: 'inbound' }), networkInfo.connections_in)
  t.equal(sampleValue(first, 'bitcoind_connections', { direction: 'outbound' }), networkInfo.connections_out)
  t.equal(sampleValue(first, 'node_dashboard_sampler_runs_total', { outcome: 'sampled' }), 1)
  t.equal(sampleValue(first, 'node_dashboard_sampler_leader'), 1)
  t.equal(sampleValue(first, 'node_dashboard_rpc_duration_seconds_count', { method: 'getblockchaininfo' }), 1)
  t.equal(sampleValue(first, 'node_dashboard_rpc_duration_seconds_count', { method: 'getbalances' }), 1)

  const before = sim.requests.length
  sim.mine(2)
  for (let i = 0; i < 5; i++) await scrape()
  t.equal(sim.requests.length, before, 'five scrapes, no RPC call')
  t.equal(sampleValue(await scrape(), 'bitcoind_blocks'), heightThen, 'the height of the round, not of the node now')
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  t.equal(sampleValue(await scrape(), 'bitcoind_blocks'), heightThen + 2, 'the next round shows the new tip')

  const fees = (samples: ReturnType<typeof parseExposition>) =>
    samples.filter((s) => s.name === 'bitcoind_fee_estimate_sat_per_vbyte').map((s) => [s.labels.target_blocks, s.value])
  t.same(fees(first), [], 'a fresh node has no fee estimate: absent, not 0')
  for (let i = 0; i < 20; i++) {
    sim.addTransactions(2)
    sim.mine(1)
  }
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  const estimates = app.sampler.latest()?.summary.fee_estimates ?? []
  t.equal(estimates.length, 5)
  t.ok(
    estimates.every((e) => e.sat_per_vb !== null && e.sat_per_vb > 0),
    'the node estimates every target now',
  )
  t.same(
    fees(await scrape()),
    estimates.map((e) => [String(e.conf_target), e.sat_per_vb]),
    "sat/vB per target, the round's estimates",
  )

  await app.settingsCache.update({ rpc_wallet: '' })
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  t.equal(sampleValue(await scrape(), 'bitcoind_wallet_balance_btc'), undefined, 'no wallet, no balance')
})

test('a failed round: bitcoind_up 0, the node values gone, the failure and the RPC errors counted', async (t) => {
  const app = await build(t, { env })
  const sim = await startNodeSimulator({ password: RPC_PASSWORD })
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD, rpc_wallet: '' })
  t.equal(await app.sampler.sampleOnce(), 'sampled')
  await sim.close()
  t.equal(await app.sampler.sampleOnce(), 'failed')
  let samples = parseExposition((await app.inject({ url: '/metrics', headers: bearer() })).body)
  t.equal(sampleValue(samples, 'bitcoind_up'), 0)
  t.equal(sampleValue(samples, 'bitcoind_blocks'), undefined, 'no stale height')
  t.equal(sampleValue(samples, 'node_dashboard_sampler_runs_total', { outcome: 'failed' }), 1)
  t.equal(sampleValue(samples, 'node_dashboard_sampler_failures_total', { reason: 'unreachable' }), 1)
  const refused = { method: 'getblockchaininfo', kind: 'unreachable', code: 'none' }
  t.equal(sampleValue(samples, 'node_dashboard_rpc_errors_total', refused), 1)

  // A node error reply is counted with its code; a method outside the catalog is "other".
  const warm = await startNodeSimulator({ password: RPC_PASSWORD, warmup: 'Loading block index…' })
  t.teardown(() => warm.close())
  await app.settingsCache.update({ rpc_url: warm.url })
  t.equal(await app.sampler.sampleOnce(), 'failed')
  warm.setWarmup(null)
  const cookie = await login(app)
  const call = (method: string) =>
    app.inject({ method: 'POST', url: '/api/rpc/call', headers: { cookie }, payload: { method, params: [] } })
  t.equal((await call('nosuchmethod_abc')).statusCode, 502)
  t.equal((await call('getblockhash')).statusCode, 502, 'missing argument')
  samples = parseExposition((await app.inject({ url: '/metrics', headers: bearer() })).body)
  t.equal(sampleValue(samples, 'node_dashboard_sampler_failures_total', { reason: 'warmup' }), 1)
  t.equal(sampleValue(samples, 'node_dashboard_rpc_errors_total', { method: 'uptime', kind: 'warmup', code: '-28' }), 1)
  t.equal(sampleValue(samples, 'node_dashboard_rpc_errors_total', { method: 'other', kind: 'rpc', code: '-32601' }), 1)
  t.equal(sampleValue(samples, 'node_dashboard_rpc_errors_total', { method: 'getblockhash', kind: 'rpc', code: '-1' }), 1)
  t.equal(sampleValue(samples, 'node_dashboard_rpc_duration_seconds_count', { method: 'other' }), 1)
  t.notOk(
    samples.some((s) => s.labels.method === 'nosuchmethod_abc'),
    'an unknown method name never becomes a label value',
  )
})

test('node actions are counted by outcome', async (t) => {
  const app = await build(t, { env })
  const cookie = await login(app)
  const sim = await startNodeSimulator({ password: RPC_PASSWORD })
  t.teardown(() => sim.close())
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD, rpc_wallet: '' })
  const act = (action: string) => app.inject({ method: 'POST', url: `/api/actions/${action}`, headers: { cookie } })
  t.equal((await act('start')).statusCode, 400, 'no SSH settings')
  t.equal((await act('stop')).statusCode, 200)
  await sim.closed
  t.equal((await act('stop')).statusCode, 502, 'already stopped')
  const samples = parseExposition((await app.inject({ url: '/metrics', headers: bearer() })).body)
  const count = (action: string, outcome: string) => sampleValue(samples, 'node_dashboard_actions_total', { action, outcome })
  t.equal(count('start', 'invalid'), 1)
  t.equal(count('stop', 'ok'), 1)
  t.equal(count('stop', 'failed'), 1)
  t.equal(count('restart', 'ok'), 0)
})

test('peer changes are counted with the node actions, by outcome', async (t) => {
  const app = await build(t, { env })
  const cookie = await login(app)
  const sim = await startNodeSimulator({ password: RPC_PASSWORD, peers: 3 })
  t.teardown(() => sim.close())
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD, rpc_wallet: '' })
  const post = (url: string, payload?: object) => app.inject({ method: 'POST', url, headers: { cookie }, payload })
  t.equal((await post('/api/peers/disconnect', { id: 1 })).statusCode, 200)
  t.equal((await post('/api/peers/disconnect', { id: 1 })).statusCode, 404, 'gone already')
  t.equal((await post('/api/peers/bans', { address: '203.0.113.9', duration_seconds: 60 })).statusCode, 200)
  t.equal((await post('/api/peers/bans', { address: '203.0.113.9', duration_seconds: 60 })).statusCode, 409)
  t.equal((await post('/api/peers/bans', { address: 'not-an-address', duration_seconds: 60 })).statusCode, 422)
  t.equal((await post('/api/peers/bans/remove', { address: '203.0.113.9' })).statusCode, 200)
  t.equal((await post('/api/peers/bans/clear')).statusCode, 200)
  await sim.close()
  t.equal((await post('/api/peers/bans/clear')).statusCode, 502, 'the node is down')
  const samples = parseExposition((await app.inject({ url: '/metrics', headers: bearer() })).body)
  const count = (action: string, outcome: string) => sampleValue(samples, 'node_dashboard_actions_total', { action, outcome })
  t.equal(count('peers:disconnect', 'ok'), 1)
  t.equal(count('peers:disconnect', 'failed'), 1, 'a peer that is not connected is a failed change')
  t.equal(count('peers:ban', 'ok'), 1)
  t.equal(count('peers:ban', 'conflict'), 1)
  t.equal(count('peers:ban', 'invalid'), 1)
  t.equal(count('peers:unban', 'ok'), 1)
  t.equal(count('peers:unban', 'failed'), 0, 'known series start at 0')
  t.equal(count('peers:clear-bans', 'ok'), 1)
  t.equal(count('peers:clear-bans', 'failed'), 1)
})

test('each app has a registry of its own, and the token never reaches the log', async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const database = await createTestDatabase()
  const config = loadConfig(configSchema, {
    ...env,
    LOG_LEVEL: 'trace',
    DASHBOARD_PASSWORD: 'prometheus-test-password',
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  })
  const app = buildApp(config, { log: { stream } })
  await app.ready()
  t.teardown(async () => {
    await app.close()
    await database.cleanup()
  })
  const other = await build(t, { env })
  await app.inject({ url: '/metrics', headers: bearer() })
  await app.inject({ url: '/metrics', headers: bearer(`${TOKEN}-wrong`) })
  await app.inject({ url: '/metrics', headers: { authorization: TOKEN } })
  await app.settingsCache.update({ rpc_url: 'http://127.0.0.1:1/' })
  t.equal(await app.sampler.sampleOnce(), 'failed')
  const mine = parseExposition((await app.inject({ url: '/metrics', headers: bearer() })).body)
  const theirs = parseExposition((await other.inject({ url: '/metrics', headers: bearer() })).body)
  t.equal(sampleValue(mine, 'node_dashboard_sampler_runs_total', { outcome: 'failed' }), 1)
  t.equal(sampleValue(theirs, 'node_dashboard_sampler_runs_total', { outcome: 'failed' }), 0, 'the other app counts its own')
  t.ok(lines.length > 0, 'the log was captured')
  t.notOk(lines.join('\n').includes(TOKEN), 'no log line carries the token')
})

import { startNodeSimulator } from '@app/node-simulator'
import { freePort } from '@app/testing'
import t from 'tap'
import { build, login } from '../helper.ts'

const PASSWORD = 'peers-rpc-Secret'

// One instance and one simulated node (6 peers, 127.0.0.2-7) for the file.
const app = await build(t, { env: { RPC_TIMEOUT_MS: '3000', METRICS_SAMPLE_SECONDS: '86400' } })
const cookie = await login(app)
const sim = await startNodeSimulator({ password: PASSWORD, peers: 6 })
t.teardown(() => sim.close())
const useNode = () => app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: PASSWORD })
await useNode()
const { test } = t

const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } })
const post = (url: string, payload?: object) => app.inject({ method: 'POST', url, headers: { cookie }, payload })
const nodeBans = async () => (await get('/api/peers/bans')).json().bans.map((b: { address: string }) => b.address)
const lastAudit = async () => (await app.audit.recent(1))[0]

test('GET /api/peers summarises getpeerinfo', async (t) => {
  const res = await get('/api/peers')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.peers.length, 6)
  t.equal(body.truncated, false)
  t.equal(body.limit, 1000)
  t.match(body.counts, { total: 6, inbound: 3, outbound: 3, by_network: { not_publicly_routable: { inbound: 3, outbound: 3 } } })
  t.same(
    body.peers.map((p: { id: number }) => p.id),
    [0, 1, 2, 3, 4, 5],
  )
  const [first] = body.peers
  t.match(first, {
    id: 0,
    address: '127.0.0.2:18444',
    direction: 'inbound',
    connection_type: 'inbound',
    network: 'not_publicly_routable',
    subversion: '/Satoshi:30.0.0/',
    version: 70016,
    services: '0000000000000c09',
    services_names: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED', 'P2P_V2'],
    ping_seconds: Number,
    min_ping_seconds: Number,
    bytes_sent: Number,
    bytes_received: Number,
    synced_height: sim.chain.height,
    synced_headers: sim.chain.height,
    starting_height: 101,
    transport: 'v2',
  })
  t.ok(Math.abs(Date.parse(first.connected_since) - sim.chain.startedAt) < 2000, 'connected_since from conntime')
  t.match(body.peers[5], { direction: 'outbound', connection_type: 'outbound-full-relay' })
  t.notMatch(res.body, PASSWORD)
})

test('the list is capped at 1000 peers; the counts cover them all', async (t) => {
  const big = await startNodeSimulator({ password: PASSWORD, peers: 1003 })
  t.teardown(async () => {
    await big.close()
    await useNode()
  })
  await app.settingsCache.update({ rpc_url: big.url })
  const body = (await get('/api/peers')).json()
  t.equal(body.peers.length, 1000)
  t.equal(body.truncated, true)
  t.equal(body.counts.total, 1003)
})

test('disconnect a peer by id: audited; an id that is not connected is 404', async (t) => {
  const res = await post('/api/peers/disconnect', { id: 4 })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ok: true, action: 'disconnect', target: '4' })
  t.notOk(
    (await get('/api/peers')).json().peers.some((p: { id: number }) => p.id === 4),
    'gone from the list',
  )
  t.match(await lastAudit(), {
    username: 'admin',
    kind: 'action',
    name: 'peers:disconnect',
    ok: true,
    outcome: 'disconnected peer 4',
  })
  const again = await post('/api/peers/disconnect', { id: 4 })
  t.equal(again.statusCode, 404)
  t.match(again.json(), { detail: 'Peer 4 is not connected (any more).' })
  t.match(await lastAudit(), { name: 'peers:disconnect', ok: false, outcome: /not connected/ })
  for (const body of [{}, { id: -1 }, { id: 1.5 }, { id: '1' }, { id: 1, address: '127.0.0.2:18444' }]) {
    t.equal((await post('/api/peers/disconnect', body)).statusCode, 422, JSON.stringify(body))
  }
})

test('ban, list, unban and clear bans, with the node errors as documented statuses', async (t) => {
  const ban = (address: unknown, duration_seconds: unknown = 3600) => post('/api/peers/bans', { address, duration_seconds })
  const res = await ban('127.0.0.3', 7200)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ok: true, action: 'ban', target: '127.0.0.3' })
  t.match(await lastAudit(), { name: 'peers:ban', ok: true, outcome: 'banned 127.0.0.3 for 7200 s' })
  t.equal((await ban('198.51.100.0/24')).statusCode, 200)
  t.equal((await ban('2001:4860::/32', 60)).statusCode, 200)
  const list = (await get('/api/peers/bans')).json()
  t.same(
    list.bans.map((b: { address: string }) => b.address),
    ['127.0.0.3/32', '198.51.100.0/24', '2001:4860::/32'],
  )
  t.match(list.bans[0], { ban_duration_seconds: 7200, time_remaining_seconds: Number })
  t.ok(Date.parse(list.bans[0].banned_until) - Date.parse(list.bans[0].ban_created) === 7_200_000)
  t.notOk(
    (await get('/api/peers')).json().peers.some((p: { address: string }) => p.address.startsWith('127.0.0.3:')),
    'the banned peer was disconnected',
  )

  const twice = await ban('127.0.0.3')
  t.equal(twice.statusCode, 409)
  t.match(twice.json().detail, /already banned/)
  t.equal((await ban('198.51.100.77')).statusCode, 409, 'inside a banned subnet')
  t.match((await ban('0.0.0.0')).json(), { detail: /node refuses 0\.0\.0\.0/ }, 'the node has the last word: 422')
  for (const address of ['nonsense', '1.2.3.4:8333', '1.2.3.4/33', '::1/129', '10.0.0.0/8/8', 'fe80::1%eth0', ' 1.2.3.4', '']) {
    const bad = await ban(address)
    t.equal(bad.statusCode, 422, `address ${JSON.stringify(address)}`)
    t.match(bad.json().detail, /address/, `address ${JSON.stringify(address)}`)
  }
  for (const duration of [0, -5, 1.5, '60', 315_360_001, null]) {
    t.equal((await ban('203.0.113.9', duration)).statusCode, 422, `duration ${duration}`)
  }
  t.equal((await post('/api/peers/bans', { address: '203.0.113.9' })).statusCode, 422, 'a duration is required')

  const unban = (address: string) => post('/api/peers/bans/remove', { address })
  t.equal((await unban('127.0.0.3')).statusCode, 200)
  t.match(await lastAudit(), { name: 'peers:unban', ok: true, outcome: 'unbanned 127.0.0.3' })
  const missing = await unban('127.0.0.3')
  t.equal(missing.statusCode, 404)
  t.match(missing.json().detail, /not banned/)
  t.equal((await unban('198.51.100.77')).statusCode, 404, 'an address inside a subnet is not a ban of its own')
  t.equal((await unban('not-an-address')).statusCode, 422)
  t.same(await nodeBans(), ['198.51.100.0/24', '2001:4860::/32'])

  const cleared = await post('/api/peers/bans/clear')
  t.equal(cleared.statusCode, 200)
  t.same(cleared.json(), { ok: true, action: 'clear-bans', target: null })
  t.same(await nodeBans(), [])
  t.match(await lastAudit(), { name: 'peers:clear-bans', ok: true })
})

test('peer changes refuse a foreign Origin and need a session; nothing reaches the node', async (t) => {
  const before = sim.requests.length
  const foreign = await app.inject({
    method: 'POST',
    url: '/api/peers/bans',
    headers: { cookie, origin: 'https://evil.example' },
    payload: { address: '203.0.113.5', duration_seconds: 60 },
  })
  t.equal(foreign.statusCode, 403)
  const anonymous = await app.inject({ method: 'POST', url: '/api/peers/bans/clear' })
  t.equal(anonymous.statusCode, 401)
  t.equal(sim.requests.length, before)
})

test('node failures are 502 (400 without rpc_url), never a 500; the failure is audited', async (t) => {
  t.teardown(useNode)
  sim.setWarmup('Loading banlist…')
  for (const [method, url, payload] of [
    ['GET', '/api/peers'],
    ['GET', '/api/peers/bans'],
    ['POST', '/api/peers/disconnect', { id: 0 }],
    ['POST', '/api/peers/bans', { address: '203.0.113.5', duration_seconds: 60 }],
    ['POST', '/api/peers/bans/remove', { address: '203.0.113.5' }],
    ['POST', '/api/peers/bans/clear'],
  ] as const) {
    const res = await app.inject({ method, url, headers: { cookie }, payload })
    t.equal(res.statusCode, 502, `${method} ${url}`)
    t.match(res.json().detail, /warm-up/, `${method} ${url}`)
  }
  t.match(await lastAudit(), { name: 'peers:clear-bans', ok: false, outcome: /warm-up/ })
  sim.setWarmup(null)
  await app.settingsCache.update({ rpc_url: `http://127.0.0.1:${await freePort()}/` })
  t.match((await post('/api/peers/bans/clear')).json(), { detail: /unreachable/ })
  await app.settingsCache.update({ rpc_url: '' })
  const unset = await get('/api/peers')
  t.equal(unset.statusCode, 400)
  t.match(unset.json().detail, /rpc_url/)
})

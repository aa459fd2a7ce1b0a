import { startNodeSimulator } from '@app/node-simulator'
import t from 'tap'
import { createSampler } from '../../src/dashboard/sampler.ts'
import { createMetricsRepository } from '../../src/history/repository.ts'
import { build, login } from '../helper.ts'
import { startTamperedNode, type Tamper } from '../rpc/tampered-node.ts'

const PASSWORD = 'replies-rpc-Secret'

// One instance and one real node for the file, behind a proxy that can change any method's result.
const app = await build(t, { env: { RPC_TIMEOUT_MS: '3000', METRICS_SAMPLE_SECONDS: '86400' } })
const cookie = await login(app)
const sim = await startNodeSimulator({ password: PASSWORD, wallets: ['w1'] })
t.teardown(() => sim.close())
const node = await startTamperedNode(t, sim.url)
await app.settingsCache.update({ rpc_url: node.url, rpc_username: sim.user, rpc_password: PASSWORD, rpc_wallet: 'w1' })
const summary = () => app.inject({ method: 'GET', url: '/api/dashboard/summary', headers: { cookie } })
const { test } = t

const replaceField =
  (field: string, value: unknown): Tamper =>
  (result) => ({ ...(result as object), [field]: value })

const misfits: [method: string, change: Tamper, what: string][] = [
  ['uptime', () => '12345', 'a string'],
  ['uptime', () => -5, 'a negative number'],
  ['getblockchaininfo', () => 'regtest', 'a string instead of an object'],
  ['getblockchaininfo', replaceField('blocks', '101'), 'blocks as a string'],
  ['getblockchaininfo', replaceField('chain', 7), 'chain as a number'],
  ['getnetworkinfo', () => null, 'null'],
  ['getnetworkinfo', replaceField('subversion', { name: 'x' }), 'subversion as an object'],
  ['getnettotals', () => [1, 2], 'an array'],
  ['getmempoolinfo', replaceField('size', 1.5), 'a fractional transaction count'],
  ['getmininginfo', replaceField('networkhashps', 'fast'), 'networkhashps as a string'],
  ['getwalletinfo', () => 'w1', 'a string'],
  ['getbalances', () => ({ mine: { trusted: '49.9' } }), 'a balance as a string'],
  ['estimatesmartfee', replaceField('blocks', 'six'), 'blocks as a string'],
]

test('the real node answers a full summary through the proxy', async (t) => {
  node.restore()
  const res = await summary()
  t.equal(res.statusCode, 200)
  t.match(res.json(), { uptime: Number, chain: { blocks: Number }, wallet: { walletname: 'w1', balances: { mine: Object } } })
})

test('any malformed result of a method the summary reads is a 502 naming the method, never a 500', async (t) => {
  for (const [method, change, what] of misfits) {
    node.restore()
    node.tamper(method, change)
    const res = await summary()
    t.equal(res.statusCode, 502, `${method} answering ${what}: ${res.statusCode} ${res.body.slice(0, 200)}`)
    t.match(res.json(), { detail: new RegExp(`^Node answered ${method} with an unexpected shape`) }, `${method}: ${what}`)
    t.notMatch(res.body, PASSWORD)
  }
  node.restore()
  t.equal((await summary()).statusCode, 200, 'a node that answers well again is read again')
})

test('a malformed getpeerinfo leaves the peers group null with the reason; the rest of the summary stands', async (t) => {
  for (const [change, what] of [
    [() => ({ peers: [] }), 'an object'],
    [() => [{ id: 0, addr: '127.0.0.2:18444', inbound: 'yes' }], 'inbound as a string'],
  ] as [Tamper, string][]) {
    node.restore()
    node.tamper('getpeerinfo', change)
    const res = await summary()
    t.equal(res.statusCode, 200, what)
    t.equal(res.json().peers, null, what)
    t.match(res.json().peers_error, /^Node answered getpeerinfo with an unexpected shape/, what)
    t.match(res.json(), { chain: { blocks: Number } }, what)
  }
  node.restore()
  t.match((await summary()).json(), { peers: { total: Number }, peers_error: null })
})

test('the sampler logs a malformed answer, skips the tick, and samples again once the node answers well', async (t) => {
  const warnings: { obj: unknown; msg?: string }[] = []
  const sampler = createSampler({
    leases: app.leases,
    metrics: createMetricsRepository(app.db),
    settings: () => app.settingsCache.get(),
    summary: app.nodeSummary,
    intervalSeconds: 86400,
    retentionDays: 30,
    log: { warn: (obj, msg) => warnings.push({ obj, msg }), debug: () => {} },
  })
  t.teardown(() => sampler.stop())
  // The app's own sampler holds the lease while it lives: hand it over.
  await app.sampler.stop()
  const rows = async () => Number((await app.db.query<{ n: string }>('SELECT count(*) AS n FROM metrics')).rows[0].n)
  const before = await rows()
  node.tamper('getblockchaininfo', replaceField('blocks', 'many'))
  t.equal(await sampler.sampleOnce(), 'failed')
  t.equal(await rows(), before, 'nothing recorded from a malformed answer')
  t.equal(warnings.length, 1, 'a malformed answer is worth a warning')
  t.match(String((warnings[0].obj as { err: Error }).err.message), /^Node answered getblockchaininfo with an unexpected shape/)
  node.restore()
  t.equal(await sampler.sampleOnce(), 'sampled')
  t.equal(await rows(), before + 1)
})

test('the routes that read node results document their 502', async (t) => {
  const paths = (await app.inject({ method: 'GET', url: '/openapi.json' })).json().paths
  for (const path of ['/api/dashboard/summary', '/api/rpc/commands', '/api/rpc/help/{method_name}']) {
    t.ok(paths[path].get.responses['502'], path)
  }
})

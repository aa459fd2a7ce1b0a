import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { BITCOIND_DATA_DIR, startNodeSimulator } from '@app/node-simulator'
import t from 'tap'
import { parseHelpListing } from '../../src/explorer/help-parser.ts'
import { build, login } from '../helper.ts'
import { startTamperedNode } from '../rpc/tampered-node.ts'

const PASSWORD = 'explorer-rpc-Secret'

// One node and one instance for the file, in order (the audit test runs first).
const shared = setup({ RPC_METHOD_DENYLIST: 'stop, DumpPrivKey' })
const { test } = t

async function setup(env: Record<string, string> = {}) {
  const sim = await startNodeSimulator({ password: PASSWORD, wallets: ['w1', 'w2'] })
  t.teardown(() => sim.close())
  const app = await build(t, { env })
  const cookie = await login(app)
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: PASSWORD })
  const call = (payload: unknown) =>
    app.inject({ method: 'POST', url: '/api/rpc/call', headers: { cookie }, payload: payload as object })
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } })
  return { sim, app, call, get }
}

test('POST /api/rpc/call runs a method, with params and a wallet override, and audits it without params', async (t) => {
  const { sim, app, call } = await shared
  const count = await call({ method: 'getblockcount', params: [] })
  t.equal(count.statusCode, 200)
  t.match(count.json(), { method: 'getblockcount', wallet: null, result: Number, duration_ms: Number })
  const hash = await call({ method: 'getblockhash', params: [0] })
  t.match(hash.json().result, /^[0-9a-f]{64}$/)
  const wallet = await call({ method: 'getbalances', wallet: 'w2' })
  t.equal(wallet.json().wallet, 'w2')
  t.equal(sim.requests.at(-1)?.path, '/wallet/w2')
  const error = await call({ method: 'getblockhash', params: [999999] })
  t.equal(error.statusCode, 502)
  t.same(error.json(), { detail: 'Node RPC error -8 on getblockhash: Block height out of range' })

  const { rows } = await app.db.query<{ username: string; kind: string; name: string; ok: boolean; outcome: string }>(
    'SELECT username, kind, name, ok, outcome FROM audit_log ORDER BY id',
  )
  t.same(
    rows.map((r) => [r.username, r.kind, r.name, r.ok]),
    [
      ['admin', 'rpc', 'getblockcount', true],
      ['admin', 'rpc', 'getblockhash', true],
      ['admin', 'rpc', 'getbalances', true],
      ['admin', 'rpc', 'getblockhash', false],
    ],
  )
  t.equal(rows[3].outcome, 'rpc -8', 'the failure kind and node error code, not its text')
  t.notMatch(JSON.stringify(rows), /999999/, 'params are never recorded')
})

test('method names are validated and RPC_METHOD_DENYLIST answers 403', async (t) => {
  const { sim, call } = await shared
  for (const payload of [
    {},
    { method: '' },
    { method: 'get block' },
    { method: '../stop' },
    { method: 'x'.repeat(65) },
    { method: 'getblockhash', params: { height: 0 } },
    { method: 'getblockcount', extra: true },
  ]) {
    const res = await call(payload)
    t.equal(res.statusCode, 422, JSON.stringify(payload))
    t.type(res.json().detail, 'string')
  }
  const before = sim.requests.length
  const stop = await call({ method: 'stop' })
  t.equal(stop.statusCode, 403)
  t.match(stop.json().detail, /refused/)
  t.equal((await call({ method: 'dumpprivkey', params: ['x'] })).statusCode, 403, 'the list is case-insensitive')
  t.equal(sim.requests.length, before, 'denied methods never reach the node')
})

test('GET /api/rpc/commands parses help into categories and methods with their synopsis', async (t) => {
  const { get } = await shared
  const res = await get('/api/rpc/commands')
  t.equal(res.statusCode, 200)
  const body = res.json()
  const names = body.categories.map((c: { name: string }) => c.name)
  t.same(names.slice(0, 2), ['Blockchain', 'Control'])
  t.ok(names.includes('Wallet') && names.includes('Zmq'))
  const blockchain = body.categories[0].methods
  t.same(
    blockchain.find((m: { name: string }) => m.name === 'getblock'),
    { name: 'getblock', args: '"blockhash" ( verbosity )', risk: 'read_only' },
  )
  t.same(
    blockchain.find((m: { name: string }) => m.name === 'getblockcount'),
    { name: 'getblockcount', args: '', risk: 'read_only' },
  )
  const risks = new Map<string, string>(
    body.categories.flatMap((c: { methods: { name: string; risk: string }[] }) => c.methods.map((m) => [m.name, m.risk])),
  )
  t.same(
    ['getbalances', 'setban', 'sendtoaddress', 'stop'].map((name) => risks.get(name)),
    ['wallet_read', 'changes_state', 'funds_or_keys', 'stops_or_damages'],
    'each method carries its risk class',
  )
  t.equal(body.count, 149, 'every method of the v30 listing')
})

test('the parser reads the captured v30 listing whole', async (t) => {
  const text = await readFile(path.join(BITCOIND_DATA_DIR, 'captured', 'help.txt'), 'utf8')
  const categories = parseHelpListing(text)
  t.equal(categories.length, 9)
  t.equal(
    categories.reduce((n, c) => n + c.methods.length, 0),
    149,
  )
})

test('the parser: headers with or without inner blanks, CRLF, a synopsis after any blank, lines before a header', async (t) => {
  const text =
    'stray\r\n== Blockchain ==\r\ngetblock  "blockhash"\t( verbosity )\r\n\r\n==Control==\nhelp ( "command" )\n  uptime  \n== ==\n====\n'
  t.same(parseHelpListing(text), [
    { name: 'Other', methods: [{ name: 'stray', args: '' }] },
    { name: 'Blockchain', methods: [{ name: 'getblock', args: '"blockhash"\t( verbosity )' }] },
    {
      name: 'Control',
      methods: [
        { name: 'help', args: '( "command" )' },
        { name: 'uptime', args: '' },
      ],
    },
    { name: '', methods: [{ name: '====', args: '' }] },
  ])
})

test('GET /api/rpc/help/{method_name}: full text, 404 for an unknown method, 422 for a bad name', async (t) => {
  const { get } = await shared
  const res = await get('/api/rpc/help/getblockhash')
  t.equal(res.statusCode, 200)
  t.equal(res.json().method, 'getblockhash')
  t.match(res.json().help, /^getblockhash height\n\nReturns hash of block in best-block-chain at height provided/)
  t.match(res.json(), {
    risk: 'read_only',
    secret_params: false,
    arguments: [{ position: 1, name: 'height', type: 'numeric', required: true, default: null, description: 'The height index' }],
  })
  t.match((await get('/api/rpc/help/stop')).json(), { risk: 'stops_or_damages', arguments: [] })
  const hidden = await get('/api/rpc/risk/invalidateblock')
  t.equal(hidden.statusCode, 200)
  t.same(hidden.json(), { method: 'invalidateblock', risk: 'stops_or_damages', secret_params: false })
  t.same((await get('/api/rpc/risk/walletpassphrase')).json().secret_params, true)
  t.same((await get('/api/rpc/risk/brandnewmethod')).json().risk, 'changes_state')
  t.equal((await get('/api/rpc/risk/bad%20name')).statusCode, 422)
  const unknown = await get('/api/rpc/help/nosuchmethod')
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { detail: "Unknown RPC method 'nosuchmethod': the node's help does not list it." })
  t.equal((await get('/api/rpc/help/bad%20name')).statusCode, 422)
})

test('help answers the explorer parses are checked: not text or over 256 KB is a 502 naming help', async (t) => {
  const { sim, app, get } = await shared
  const node = await startTamperedNode(t, sim.url)
  await app.settingsCache.update({ rpc_url: node.url })
  t.teardown(() => app.settingsCache.update({ rpc_url: sim.url }))
  for (const [what, value] of [
    ['a number', 42],
    ['an object', { help: 'text' }],
    ['null', null],
  ] as const) {
    node.tamper('help', () => value)
    for (const url of ['/api/rpc/commands', '/api/rpc/help/getblock']) {
      const res = await get(url)
      t.equal(res.statusCode, 502, `${url}, help answering ${what}`)
      t.match(res.json().detail, /^Node answered help with an unexpected shape/, `${url}, help answering ${what}`)
    }
  }
  node.tamper('help', () => 'x'.repeat(256 * 1024 + 1))
  for (const url of ['/api/rpc/commands', '/api/rpc/help/getblock']) {
    const res = await get(url)
    t.equal(res.statusCode, 502, url)
    t.match(res.json().detail, /^Node RPC reply to help exceeded 262144 bytes/, url)
  }
  node.restore()
  t.equal((await get('/api/rpc/commands')).json().count, 149)
})

test("the raw call passes any result through untouched: that is the user's own call", async (t) => {
  const { sim, app, call } = await shared
  const node = await startTamperedNode(t, sim.url)
  await app.settingsCache.update({ rpc_url: node.url })
  t.teardown(() => app.settingsCache.update({ rpc_url: sim.url }))
  node.tamper('uptime', () => 'not a number')
  node.tamper('getblockchaininfo', () => [1, 'two', { three: 3 }])
  t.same((await call({ method: 'uptime' })).json().result, 'not a number')
  t.same((await call({ method: 'getblockchaininfo' })).json().result, [1, 'two', { three: 3 }])
  node.tamper('help', () => 42)
  t.same((await call({ method: 'help' })).json().result, 42)
})

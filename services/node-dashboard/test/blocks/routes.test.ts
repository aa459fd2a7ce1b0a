import { startNodeSimulator } from '@app/node-simulator'
import t, { type Test } from 'tap'
import { build, login } from '../helper.ts'
import { startTamperedNode } from '../rpc/tampered-node.ts'

const PASSWORD = 'blocks-rpc-Secret'

// One instance for the file; the mempool limit is small so both of its states are reachable.
const app = await build(t, { env: { MEMPOOL_FEES_MAX_TXS: '20', MEMPOOL_FEES_MIN_SECONDS: '60' } })
const cookie = await login(app)
const { test } = t

async function withNode(t: Test) {
  const sim = await startNodeSimulator({ password: PASSWORD })
  t.teardown(() => sim.close())
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: PASSWORD, rpc_wallet: '' })
  const get = (url: string, headers: Record<string, string> = { cookie }) => app.inject({ method: 'GET', url, headers })
  /** The methods of each HTTP request the node received since `from` (a batch is one request). */
  const methodsSince = (from: number) =>
    sim.requests.slice(from).map((r) => {
      const body = JSON.parse(r.body)
      return Array.isArray(body) ? body.map((c: { method: string }) => c.method) : [body.method]
    })
  return { sim, get, methodsSince }
}

type Row = { height: number; hash: string; txs: number; total_fee: number; median_fee_rate: number; size: number; weight: number }

test('the last blocks, newest first, from getblockstats; cached by hash, refreshed when the tip moves', async (t) => {
  const { sim, get, methodsSince } = await withNode(t)
  sim.addTransactions(2)
  sim.mine(1)
  const res = await get('/api/blocks?count=5')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const body = res.json()
  t.equal(body.tip_height, 102)
  t.same(
    body.blocks.map((b: Row) => b.height),
    [102, 101, 100, 99, 98],
  )
  t.match(body.blocks[0], {
    hash: body.tip_hash,
    time: Number,
    txs: 4,
    size: 3 * 222,
    weight: 3 * 561,
    total_fee: 3 * 1410,
    avg_fee_rate: 10,
    median_fee_rate: 10,
    fee_rate_percentiles: [10, 10, 10, 10, 10],
  })
  t.match(body.blocks[1], { txs: 1, total_fee: 0, median_fee_rate: 0 }, 'a captured block holds its coinbase only')
  t.same(methodsSince(0), [['getblockcount', 'getbestblockhash'], Array(5).fill('getblockhash'), Array(5).fill('getblockstats')])
  const stats = JSON.parse(sim.requests[2].body)[0]
  t.same(stats.params[1], [
    'avgfeerate',
    'blockhash',
    'feerate_percentiles',
    'height',
    'time',
    'total_size',
    'total_weight',
    'totalfee',
    'txs',
  ])

  const before = sim.requests.length
  t.same((await get('/api/blocks?count=5')).json(), body, 'the same tip: the same answer')
  t.same((await get('/api/blocks?count=3')).json().blocks, body.blocks.slice(0, 3), 'fewer blocks of the same tip')
  t.same(
    methodsSince(before),
    [
      ['getblockcount', 'getbestblockhash'],
      ['getblockcount', 'getbestblockhash'],
    ],
    'while the tip stays, one small batch per request',
  )

  sim.mine(1)
  const moved = sim.requests.length
  const next = (await get('/api/blocks?count=5')).json()
  t.same(
    next.blocks.map((b: Row) => b.height),
    [103, 102, 101, 100, 99],
  )
  t.same(next.blocks.slice(1), body.blocks.slice(0, 4))
  t.same(
    methodsSince(moved),
    [['getblockcount', 'getbestblockhash'], Array(5).fill('getblockhash'), ['getblockstats']],
    'only the new block',
  )
})

test('count: default 20, 1..50, anything else 422; a session is required', async (t) => {
  const { get, methodsSince } = await withNode(t)
  t.equal((await get('/api/blocks')).json().blocks.length, 20)
  t.equal((await get('/api/blocks?count=50')).json().blocks.length, 50)
  t.equal(
    methodsSince(0)
      .flat()
      .filter((m) => m === 'getblockstats').length,
    50,
    'each block asked for once',
  )
  for (const bad of ['0', '51', '2.5', 'ten', '-1']) {
    const res = await get(`/api/blocks?count=${bad}`)
    t.equal(res.statusCode, 422, `count=${bad}`)
    t.match(res.json().detail, /count/)
  }
  t.equal((await get('/api/blocks', {})).statusCode, 401)
  t.equal((await get('/api/mempool/fees', {})).statusCode, 401)
})

test('concurrent requests share one round of node calls', async (t) => {
  const { get, methodsSince, sim } = await withNode(t)
  sim.setLatency(50)
  const answers = await Promise.all([1, 2, 3, 4].map(() => get('/api/blocks?count=10')))
  for (const res of answers) t.equal(res.statusCode, 200)
  t.equal(methodsSince(0).length, 3, 'three requests to the node in all')
})

test('a node answer of the wrong shape or a node error is a 502 saying so', async (t) => {
  const { sim } = await withNode(t)
  const node = await startTamperedNode(t, sim.url)
  await app.settingsCache.update({ rpc_url: node.url })
  node.tamper('getblockstats', (result) => ({ ...(result as object), totalfee: 'lots' }))
  sim.mine(1)
  const bad = await app.inject({ method: 'GET', url: '/api/blocks?count=2', headers: { cookie } })
  t.equal(bad.statusCode, 502)
  t.match(bad.json().detail, /^Node answered getblockstats with an unexpected shape \(totalfee: /)
  node.restore()
  sim.setWarmup('Loading block index…')
  const warm = await app.inject({ method: 'GET', url: '/api/blocks?count=2', headers: { cookie } })
  t.equal(warm.statusCode, 502)
  t.match(warm.json().detail, /warm-up/)
  sim.setWarmup(null)
  t.equal((await app.inject({ method: 'GET', url: '/api/blocks?count=2', headers: { cookie } })).statusCode, 200)
  t.notMatch(bad.body + warm.body, PASSWORD)
})

test('mempool fee distribution: buckets of transactions and vbytes, reused for MEMPOOL_FEES_MIN_SECONDS', async (t) => {
  const { sim, get, methodsSince } = await withNode(t)
  sim.addTransactions(3)
  const res = await get('/api/mempool/fees')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body, { state: 'ok', mempool_size: 4, max_transactions: 20 })
  t.ok(Date.parse(body.next_fetch_at) - Date.parse(body.fetched_at) === 60_000)
  const used = body.buckets.filter((b: { count: number }) => b.count > 0)
  t.same(used, [{ min_fee_rate: 10, max_fee_rate: 12, count: 4, vsize: 4 * 141 }], '1410 sat / 141 vB = 10 sat/vB')
  t.same(body.buckets.at(-1), { min_fee_rate: 1000, max_fee_rate: null, count: 0, vsize: 0 })
  t.same(methodsSince(0), [['getmempoolinfo'], ['getrawmempool']])
  sim.addTransactions(5)
  t.same((await get('/api/mempool/fees')).json(), body, 'within the interval the same answer')
  t.equal(sim.requests.length, 2, 'and no node call')
})

test('a mempool above MEMPOOL_FEES_MAX_TXS is not fetched', async (t) => {
  const { sim, get, methodsSince } = await withNode(t)
  sim.addTransactions(25)
  const body = (await get('/api/mempool/fees')).json()
  t.match(body, { state: 'too-large', mempool_size: 26, max_transactions: 20, buckets: [] })
  t.same(methodsSince(0), [['getmempoolinfo']], 'one cheap call, no getrawmempool')
})

import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'tap'
import { BITCOIND_DATA_DIR, blockHash, type NodeSimulatorOptions, send, startNodeSimulator } from '../src/index.ts'

const captured = path.join(BITCOIND_DATA_DIR, 'captured')

interface Capture {
  name: string
  auth: string
  method: string
  path: string
  body: string
  status: number
  statusText: string
  headers: Map<string, string>
  replyBody: string
}

/** Every row of http-index.md joined with its raw `curl -i` file. */
function captures(): Capture[] {
  const index = readFileSync(path.join(captured, 'http-index.md'), 'utf8')
  const rows: Capture[] = []
  for (const line of index.split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    if (cells.length < 8 || !/^[a-z0-9][a-z0-9.-]*$/.test(cells[1]) || cells[1] === 'case') continue
    const [, name, auth, method, urlPath, bodyCell] = cells
    const raw = readFileSync(path.join(captured, `http-${name}.txt`), 'utf8')
    const split = raw.indexOf('\r\n\r\n')
    const [statusLine, ...headerLines] = raw.slice(0, split).split('\r\n')
    const [, status, ...text] = statusLine.split(' ')
    rows.push({
      name,
      auth,
      method,
      path: urlPath,
      body: /`([^`]*)`/.exec(bodyCell)?.[1] ?? '',
      status: Number(status),
      statusText: text.join(' '),
      headers: new Map(headerLines.map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()])),
      replyBody: raw.slice(split + 4),
    })
  }
  return rows
}

/** The node state each capture was taken in (captured/README.md). */
function stateFor(name: string): NodeSimulatorOptions {
  if (name.includes('root-one-wallet')) return { wallets: ['w1'] }
  if (name.includes('no-wallet-loaded')) return { wallets: [] }
  if (name.includes('warmup')) return { wallets: ['w1', 'w2'], warmup: 'Loading wallet…' }
  return { wallets: ['w1', 'w2'] }
}

test('every captured HTTP exchange is reproduced byte for byte', async (t) => {
  const all = captures()
  const files = readdirSync(captured).filter((f) => /^http-.+\.txt$/.test(f))
  t.equal(all.length, files.length, 'every http-*.txt capture is indexed and checked')
  for (const c of all) {
    const sim = await startNodeSimulator({ user: 'u', password: 'p', ...stateFor(c.name) })
    const reply = await send(`http://127.0.0.1:${sim.port}${c.path}`, {
      method: c.method,
      body: c.method === 'POST' ? c.body : undefined,
      auth: c.auth === 'none' ? undefined : c.auth,
    })
    t.equal(reply.status, c.status, `${c.name}: status`)
    t.equal(reply.statusText, c.statusText, `${c.name}: reason phrase`)
    t.equal(reply.body, c.replyBody, `${c.name}: body`)
    for (const header of ['content-type', 'content-length', 'www-authenticate']) {
      t.equal(reply.headers[header], c.headers.get(header), `${c.name}: ${header}`)
    }
    if (c.headers.get('connection') === 'close') t.equal(reply.headers.connection, 'close', `${c.name}: connection`)
    await sim.close()
  }
})

test('method results match the captured raw bodies', async (t) => {
  const sim = await startNodeSimulator({ wallets: ['w1'] })
  t.teardown(() => sim.close())
  for (const file of readdirSync(path.join(captured, 'raw'))) {
    const method = file.replace(/\.body$/, '')
    const expected = readFileSync(path.join(captured, 'raw', file), 'utf8')
    const reply = await send(sim.url, { auth: 'u:p', body: JSON.stringify({ method, params: [], id: 1 }) })
    t.equal(reply.status, 200, `${method}: status`)
    // Clock-driven values differ by nature; everything else is identical.
    const normalize = (s: string) => s.replace(/"timemillis":\d+/, '"timemillis":0').replace(/^\{"result":\d+,/, '{"result":0,')
    const body = method === 'uptime' || method === 'getnettotals' ? normalize(reply.body) : reply.body
    t.equal(body, method === 'uptime' || method === 'getnettotals' ? normalize(expected) : expected, method)
  }
})

test('help listing and per-method help are the captured texts', async (t) => {
  const sim = await startNodeSimulator()
  t.teardown(() => sim.close())
  const call = async (params: unknown[]) =>
    JSON.parse((await send(sim.url, { auth: 'u:p', body: JSON.stringify({ method: 'help', params, id: 1 }) })).body)
  t.equal((await call([])).result, readFileSync(path.join(captured, 'help.txt'), 'utf8'), 'help')
  for (const file of readdirSync(captured).filter((f) => /^help-.+\.txt$/.test(f))) {
    const name = file.slice(5, -4)
    t.equal((await call([name])).result, readFileSync(path.join(captured, file), 'utf8'), `help ${name}`)
  }
  t.equal((await call(['getblock'])).result.split('\n')[0], 'getblock "blockhash" ( verbosity )')
})

test('wrong password answers 401 only after about 250 ms', async (t) => {
  const sim = await startNodeSimulator()
  t.teardown(() => sim.close())
  const started = performance.now()
  const reply = await send(sim.url, { auth: 'u:wrong', body: '{"method":"getblockcount","id":1}' })
  t.equal(reply.status, 401)
  t.equal(reply.body, '')
  t.ok(performance.now() - started >= 240, 'slowed down like Core')
  t.equal((await send(sim.url, { auth: 'u', body: '{}' })).status, 401, 'no colon in the credentials')
})

test('stop replies, then the RPC port refuses connections', async (t) => {
  const sim = await startNodeSimulator()
  const reply = await send(sim.url, { auth: 'u:p', body: '{"method":"stop","params":[],"id":1}' })
  t.equal(reply.body, '{"result":"Bitcoin Core stopping","error":null,"id":1}\n')
  await sim.closed
  t.ok(sim.stoppedByRpc)
  await t.rejects(send(sim.url, { auth: 'u:p', body: '{"method":"getblockcount","id":1}' }), { code: 'ECONNREFUSED' })
})

test('warm-up blocks every method, help included, until it ends', async (t) => {
  const sim = await startNodeSimulator({ warmup: 'Loading block index…' })
  t.teardown(() => sim.close())
  const body = '{"method":"help","params":["uptime"],"id":1}'
  const warm = await send(sim.url, { auth: 'u:p', body })
  t.equal(warm.status, 500)
  t.same(JSON.parse(warm.body).error, { code: -28, message: 'Loading block index…' })
  const unknown = await send(sim.url, { auth: 'u:p', body: '{"method":"nosuch","id":1}' })
  t.equal(JSON.parse(unknown.body).error.code, -28, 'warm-up is checked before the method lookup')
  sim.setWarmup(null)
  t.equal((await send(sim.url, { auth: 'u:p', body })).status, 200)

  const timed = await startNodeSimulator({ warmup: 150 })
  t.teardown(() => timed.close())
  const first = await send(timed.url, { auth: 'u:p', body: '{"method":"getblockcount","id":1}' })
  t.equal(JSON.parse(first.body).error.message, 'Loading banlist…')
  await new Promise((r) => setTimeout(r, 200))
  t.equal(JSON.parse((await send(timed.url, { auth: 'u:p', body: '{"method":"getblockcount","id":1}' })).body).result, 101)
})

test('blocks and mempool move; getblockhash follows the chain', async (t) => {
  const sim = await startNodeSimulator({ blockIntervalMs: 100, txIntervalMs: 20 })
  t.teardown(() => sim.close())
  const get = async (method: string, params: unknown[] = []) =>
    JSON.parse((await send(sim.url, { auth: 'u:p', body: JSON.stringify({ method, params, id: 1 }) })).body)
  const before = (await get('getblockchaininfo')).result
  await new Promise((r) => setTimeout(r, 250))
  const after = (await get('getblockchaininfo')).result
  t.ok(after.blocks >= before.blocks + 2, `blocks advanced ${before.blocks} -> ${after.blocks}`)
  t.not(after.bestblockhash, before.bestblockhash)
  t.equal((await get('getblockhash', [after.blocks])).result, after.bestblockhash)
  t.equal((await get('getblockhash', [after.blocks + 1000])).error.message, 'Block height out of range')
  t.equal((await get('getbalances')).error, null, 'one wallet: wallet calls on / work')
  // A block may empty the mempool just before a sample, so look for a while (bounded) rather than once.
  let seen = 0
  for (let i = 0; i < 100 && seen === 0; i++) {
    await new Promise((r) => setTimeout(r, 20))
    seen = (await get('getmempoolinfo')).result.size
  }
  t.ok(seen >= 1, 'transactions arrive between blocks')

  // Without the clock, only mine()/addTransactions() move the node: exact values.
  const manual = await startNodeSimulator()
  t.teardown(() => manual.close())
  const call = async (method: string) =>
    JSON.parse((await send(manual.url, { auth: 'u:p', body: JSON.stringify({ method, id: 1 }) })).body).result
  manual.mine(2)
  t.equal(await call('getblockcount'), 103)
  t.equal(await call('getbestblockhash'), blockHash(103))
  const beyond = await send(manual.url, { auth: 'u:p', body: '{"method":"getblockhash","params":[104],"id":1}' })
  t.same(JSON.parse(beyond.body).error, { code: -8, message: 'Block height out of range' }, 'the tip + 1 does not exist')
  t.equal((await call('getmempoolinfo')).size, 0, 'a new block empties the mempool')
  manual.addTransactions(3)
  const mempool = await call('getmempoolinfo')
  t.equal(mempool.size, 3)
  t.equal(mempool.bytes, 3 * 141)
  t.equal((await call('getmininginfo')).pooledtx, 3)
})

test('work queue, fork mode, latency, peers and version drift', async (t) => {
  const sim = await startNodeSimulator({ workQueueFull: true })
  t.teardown(() => sim.close())
  const full = await send(sim.url, { auth: 'u:p', body: '{"method":"getblockcount","id":1}' })
  t.equal(full.status, 503)
  t.equal(full.body, 'Work queue depth exceeded')
  sim.setWorkQueueFull(false)
  t.equal((await send(sim.url, { auth: 'u:p', body: '{"method":"getblockcount","id":1}' })).status, 200)

  const fork = await startNodeSimulator({ fork: true })
  t.teardown(() => fork.close())
  const uptime = await send(fork.url, { auth: 'u:p', body: '{"method":"uptime","id":1}' })
  t.equal(uptime.status, 404)
  t.equal(JSON.parse(uptime.body).error.code, -32601)
  const listing = JSON.parse((await send(fork.url, { auth: 'u:p', body: '{"method":"help","id":1}' })).body).result
  t.notOk(listing.split('\n').includes('uptime'), 'uptime is not listed')
  t.equal((await send(`${fork.url}wallet/w1`, { auth: 'u:p', body: '{"method":"getbalances","id":1}' })).status, 404)

  const slow = await startNodeSimulator({ latencyMs: 60, peers: 4, version: '28.0.0' })
  t.teardown(() => slow.close())
  const started = performance.now()
  const info = JSON.parse((await send(slow.url, { auth: 'u:p', body: '{"method":"getnetworkinfo","id":1}' })).body).result
  t.ok(performance.now() - started >= 55, 'latency added')
  t.equal(info.subversion, '/Satoshi:28.0.0/')
  t.equal(info.connections_in + info.connections_out, 4)
  const peers = JSON.parse((await send(slow.url, { auth: 'u:p', body: '{"method":"getpeerinfo","id":1}' })).body).result
  t.equal(peers.length, 4)
  const wallet = JSON.parse((await send(slow.url, { auth: 'u:p', body: '{"method":"getwalletinfo","id":1}' })).body)
  t.equal(wallet.result.balance, 49.9999859, 'v28 getwalletinfo still has balance')
})

test('named parameters, wallet path decoding and batch quirks', async (t) => {
  const sim = await startNodeSimulator({ wallets: ['my wallet', 'w2'] })
  t.teardown(() => sim.close())
  const named = await send(sim.url, { auth: 'u:p', body: '{"method":"getblockhash","params":{"nope":1},"id":1}' })
  t.same(JSON.parse(named.body).error, { code: -8, message: 'Unknown named parameter nope' })
  const w = await send(`${sim.url}wallet/my%20wallet`, { auth: 'u:p', body: '{"method":"getwalletinfo","id":1}' })
  t.equal(JSON.parse(w.body).result.walletname, 'my wallet')
  const batch = await send(sim.url, { auth: 'u:p', body: '[{"method":"getblockcount","id":7},5]' })
  t.same(JSON.parse(batch.body)[1], { result: null, error: { code: -32600, message: 'Invalid Request object' }, id: 7 })
  t.equal((await send(sim.url, { auth: 'u:p', body: '5' })).status, 500, 'a scalar body is a parse error')
  t.equal((await send(sim.url, { method: 'DELETE', auth: 'u:p' })).status, 405)
})

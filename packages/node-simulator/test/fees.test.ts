import { test } from 'tap'
import { blockHash, send, startNodeSimulator } from '../src/index.ts'

async function node(options = {}) {
  const sim = await startNodeSimulator(options)
  const raw = (method: string, params: unknown) => send(sim.url, { auth: 'u:p', body: JSON.stringify({ method, params, id: 1 }) })
  const call = async (method: string, params: unknown = []) => JSON.parse((await raw(method, params)).body)
  return { sim, raw, call }
}

test('estimatesmartfee on a fresh node: Core\'s "Insufficient data" answer, then estimates once blocks confirmed transactions', async (t) => {
  const { sim, raw, call } = await node()
  t.teardown(() => sim.close())
  // A fresh regtest node answers exactly this (blocks 0: it has seen no block yet).
  const fresh = await raw('estimatesmartfee', [6])
  t.equal(fresh.body, '{"result":{"errors":["Insufficient data or no feerate found"],"blocks":0},"error":null,"id":1}\n')
  sim.mine(2)
  t.same((await call('estimatesmartfee', [6])).result, { errors: ['Insufficient data or no feerate found'], blocks: 1 })
  for (let i = 0; i < 10; i++) {
    sim.addTransactions(3)
    sim.mine(1)
  }
  const six = (await call('estimatesmartfee', [6])).result
  t.same(Object.keys(six), ['feerate', 'blocks'], 'feerate and blocks, no errors')
  t.equal(six.blocks, 6)
  t.ok(six.feerate > 0 && six.feerate < 0.001, `feerate in BTC/kvB (${six.feerate})`)
  t.match((await raw('estimatesmartfee', [6])).body, /"feerate":0\.000\d{5},/, 'an amount with 8 decimals like ValueFromAmount')
  t.equal((await call('estimatesmartfee', [1])).result.blocks, 2, 'target 1 is answered as 2')
  t.equal((await call('estimatesmartfee', [144])).result.blocks, 6, 'clamped to half the blocks seen')
  t.ok((await call('estimatesmartfee', [2])).result.feerate > six.feerate, 'a shorter target costs more')
  t.equal((await call('estimatesmartfee', [6, 'CONSERVATIVE'])).error, null, 'the mode is case-insensitive')
})

test('estimatesmartfee refuses what Core refuses, with its codes and texts', async (t) => {
  const { sim, call } = await node()
  t.teardown(() => sim.close())
  t.same((await call('estimatesmartfee', [0])).error, { code: -8, message: 'Invalid conf_target, must be between 1 and 1008' })
  t.same((await call('estimatesmartfee', [1009])).error, { code: -8, message: 'Invalid conf_target, must be between 1 and 1008' })
  t.same((await call('estimatesmartfee', [1.5])).error, { code: -1, message: 'JSON integer out of range' })
  t.same((await call('estimatesmartfee', [6, 'fast'])).error, {
    code: -8,
    message: 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"',
  })
  const wrongType = (await call('estimatesmartfee', ['6'])).error
  t.equal(wrongType.code, -3)
  t.match(wrongType.message, 'Position 1 (conf_target)": "JSON value of type string is not of expected type number"')
  const noArgs = (await call('estimatesmartfee', [])).error
  t.equal(noArgs.code, -1)
  t.match(noArgs.message, /^estimatesmartfee conf_target \( "estimate_mode" \)\n/, 'the help text, as Core throws it')
})

test('getblockstats: every field of Core v30, by height or hash, selected stats sorted', async (t) => {
  const { sim, call, raw } = await node()
  t.teardown(() => sim.close())
  const captured = (await call('getblockstats', [101])).result
  t.same(Object.keys(captured), [
    'avgfee',
    'avgfeerate',
    'avgtxsize',
    'blockhash',
    'feerate_percentiles',
    'height',
    'ins',
    'maxfee',
    'maxfeerate',
    'maxtxsize',
    'medianfee',
    'mediantime',
    'mediantxsize',
    'minfee',
    'minfeerate',
    'mintxsize',
    'outs',
    'subsidy',
    'swtotal_size',
    'swtotal_weight',
    'swtxs',
    'time',
    'total_out',
    'total_size',
    'total_weight',
    'totalfee',
    'txs',
    'utxo_increase',
    'utxo_size_inc',
    'utxo_increase_actual',
    'utxo_size_inc_actual',
  ])
  t.match(captured, {
    blockhash: blockHash(101),
    height: 101,
    txs: 1,
    ins: 0,
    outs: 2,
    totalfee: 0,
    minfee: 0,
    feerate_percentiles: [0, 0, 0, 0, 0],
    subsidy: 5_000_000_000,
    time: 1795239461,
  })
  // The captured mempool transaction and four more confirm in the next block.
  sim.addTransactions(4)
  sim.mine(1)
  const byHash = (await call('getblockstats', [blockHash(102)])).result
  t.match(byHash, { height: 102, txs: 6, ins: 5, totalfee: 5 * 1410, total_size: 5 * 222, total_weight: 5 * 561, avgfeerate: 10 })
  t.same(byHash.feerate_percentiles, [10, 10, 10, 10, 10], 'sat/vB, integers like Core')
  t.same(byHash, (await call('getblockstats', [102])).result, 'by height the same')
  t.equal(
    (await raw('getblockstats', [102, ['totalfee', 'height', 'txs', 'height']])).body,
    '{"result":{"height":102,"totalfee":7050,"txs":6},"error":null,"id":1}\n',
    'selected stats, deduplicated and in sorted order',
  )
  t.same((await call('getblockstats', [102, []])).result, byHash, 'an empty selection means all')
})

test('getblockstats refuses what Core refuses, with its codes and texts', async (t) => {
  const { sim, call } = await node()
  t.teardown(() => sim.close())
  t.same((await call('getblockstats', [102])).error, { code: -8, message: 'Target block height 102 after current tip 101' })
  t.same((await call('getblockstats', [-1])).error, { code: -8, message: 'Target block height -1 is negative' })
  t.same((await call('getblockstats', ['00'.repeat(32)])).error, { code: -5, message: 'Block not found' })
  t.same((await call('getblockstats', ['abc'])).error, {
    code: -8,
    message: "hash_or_height must be of length 64 (not 3, for 'abc')",
  })
  t.same((await call('getblockstats', ['z'.repeat(64)])).error, {
    code: -8,
    message: `hash_or_height must be hexadecimal string (not '${'z'.repeat(64)}')`,
  })
  t.same((await call('getblockstats', [true])).error, {
    code: -1,
    message: 'JSON value of type bool is not of expected type string',
  })
  t.same((await call('getblockstats', [1, ['nosuch']])).error, { code: -8, message: "Invalid selected statistic 'nosuch'" })
  const wrongType = (await call('getblockstats', [1, 'height'])).error
  t.equal(wrongType.code, -3)
  t.match(wrongType.message, 'Position 2 (stats)": "JSON value of type string is not of expected type array"')
})

test('getrawmempool: txids, or Core v30 entries with verbose, consistent with getmempoolinfo', async (t) => {
  const { sim, call } = await node()
  t.teardown(() => sim.close())
  sim.addTransactions(2)
  const txids = (await call('getrawmempool')).result
  t.equal(txids.length, 3, 'the captured transaction and two more')
  t.same((await call('getrawmempool')).result, txids, 'stable between calls')
  const verbose = (await call('getrawmempool', [true])).result
  t.same(Object.keys(verbose), txids)
  t.same(Object.keys(verbose[txids[0]]), [
    'vsize',
    'weight',
    'time',
    'height',
    'descendantcount',
    'descendantsize',
    'ancestorcount',
    'ancestorsize',
    'wtxid',
    'fees',
    'depends',
    'spentby',
    'bip125-replaceable',
    'unbroadcast',
  ])
  t.match(verbose[txids[0]], { vsize: 141, weight: 561, height: 101, fees: { base: 0.0000141, modified: 0.0000141 } })
  const info = (await call('getmempoolinfo')).result
  const entries = Object.values(verbose) as { vsize: number; fees: { base: number } }[]
  t.equal(
    entries.reduce((sum, e) => sum + e.vsize, 0),
    info.bytes,
  )
  t.equal(Math.round(entries.reduce((sum, e) => sum + e.fees.base, 0) * 1e8), Math.round(info.total_fee * 1e8))
  t.match((await call('getrawmempool', [false, true])).result, { txids, mempool_sequence: Number })
  t.same((await call('getrawmempool', [true, true])).error, {
    code: -8,
    message: 'Verbose results cannot contain mempool sequence values.',
  })
  t.match((await call('getrawmempool', [1])).error, {
    code: -3,
    message: /JSON value of type number is not of expected type bool/,
  })
  sim.mine(1)
  t.same((await call('getrawmempool')).result, [], 'a block empties it')
})

import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { BITCOIND_DATA_DIR, rpc, startNodeSimulator } from '@app/node-simulator'
import { test } from 'tap'
import { isRpcError } from '../../src/rpc/errors.ts'
import { type CheckedMethod, checkedReply, NodeReplies } from '../../src/rpc/replies.ts'

const captured = path.join(BITCOIND_DATA_DIR, 'captured')

async function realResult(method: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(captured, 'raw', `${method}.body`), 'utf8')).result
}

function refusal(method: CheckedMethod, result: unknown): string {
  try {
    checkedReply(method, result)
  } catch (error) {
    if (isRpcError(error, 'bad-reply') && error.statusCode === 502) return error.message
    throw error
  }
  throw new Error(`${method} accepted ${JSON.stringify(result)}`)
}

// Methods read by the dashboard with no recorded reply: the simulator answers them from Core v30's help
// pages, and its answer must pass. A new checked method must be captured or named here.
const UNCAPTURED: Record<string, unknown[]> = {
  listbanned: [],
  getblockhash: [1],
  getblockstats: [1],
  getrawmempool: [true],
}

test('every result real bitcoind v30 gave to a method the dashboard reads has the expected shape', async (t) => {
  // No stop reply was recorded; bitcoind answers the text below (the stop action tests replay it).
  // estimatesmartfee was not captured (a fresh regtest node has no estimate): Core's two documented forms follow.
  const methods = Object.keys(NodeReplies).filter(
    (m) => !['help', 'stop', 'estimatesmartfee', ...Object.keys(UNCAPTURED)].includes(m),
  ) as CheckedMethod[]
  for (const method of methods) {
    const result = await realResult(method)
    t.equal(checkedReply(method, result), result, method)
  }
  const listing = await readFile(path.join(captured, 'help.txt'), 'utf8')
  t.equal(checkedReply('help', listing), listing)
  t.equal(checkedReply('stop', 'Bitcoin Core stopping'), 'Bitcoin Core stopping')
  const noEstimate = { errors: ['Insufficient data or no feerate found'], blocks: 0 }
  t.equal(checkedReply('estimatesmartfee', noEstimate), noEstimate)
  t.ok(checkedReply('estimatesmartfee', { feerate: 0.0001, blocks: 2 }))
  t.ok(checkedReply('estimatesmartfee', { feerate: -1, blocks: 6 }), 'Core 0.14-era forks answer -1 without an estimate')
  t.match(refusal('estimatesmartfee', { feerate: '0.0001', blocks: 2 }), /\(feerate: Expected number\)/)
  t.match(refusal('estimatesmartfee', { errors: 'none', blocks: 2 }), /\(errors: Expected array\)/)
})

test('the checked methods without a recorded reply accept what the simulator answers', async (t) => {
  const node = await startNodeSimulator()
  t.teardown(() => node.close())
  for (const [method, params] of Object.entries(UNCAPTURED)) {
    const reply = await rpc(node.url, method, params, { auth: `${node.user}:${node.password}` })
    t.equal(reply.json.error, null, method)
    t.equal(checkedReply(method as CheckedMethod, reply.json.result), reply.json.result, method)
  }
})

test('a misfit result is a 502 naming the method and the field, never echoing the value', async (t) => {
  t.equal(refusal('uptime', '12345'), 'Node answered uptime with an unexpected shape (Expected integer).')
  t.match(refusal('uptime', -1), /^Node answered uptime with an unexpected shape/)
  t.match(refusal('uptime', 1.5), /^Node answered uptime with an unexpected shape/)
  const chain = (await realResult('getblockchaininfo')) as Record<string, unknown>
  t.equal(
    refusal('getblockchaininfo', { ...chain, blocks: 'secret-looking-101' }),
    'Node answered getblockchaininfo with an unexpected shape (blocks: Expected integer).',
  )
  t.match(
    refusal('getblockchaininfo', 'a string'),
    /^Node answered getblockchaininfo with an unexpected shape \(Expected object\)/,
  )
  const { headers, ...headless } = chain
  t.match(refusal('getblockchaininfo', headless), /\(headers: Expected required property\)/)
  t.match(refusal('getnetworkinfo', null), /^Node answered getnetworkinfo /)
  t.match(refusal('getnettotals', []), /^Node answered getnettotals /)
  t.match(refusal('getmempoolinfo', { size: 1, bytes: 2, usage: '3' }), /\(usage: /)
  t.match(refusal('getmininginfo', { networkhashps: 'fast', difficulty: 1 }), /\(networkhashps: /)
  t.match(refusal('getwalletinfo', 'w1'), /^Node answered getwalletinfo /)
  t.match(refusal('getbalances', { mine: { trusted: '49.9' } }), /\(mine\.trusted: Expected number\)/)
  t.match(refusal('help', { text: 'help' }), /^Node answered help with an unexpected shape \(Expected string\)/)
})

test('fields the dashboard does not read, and those older nodes lack, are left alone', async (t) => {
  const network = (await realResult('getnetworkinfo')) as Record<string, unknown>
  const { connections_in, connections_out, ...older } = network
  t.ok(checkedReply('getnetworkinfo', { ...older, networks: 'anything', extra: [1, 2] }))
  t.ok(checkedReply('getwalletinfo', {}))
})

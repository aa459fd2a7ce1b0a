// estimatesmartfee and getblockstats as Core v30 computes them (src/rpc/fees.cpp, src/rpc/blockchain.cpp),
// over the simulated chain: captured blocks hold their coinbase only, later ones the simulated transactions.
import { type Chain, TX } from './chain.ts'
import { sats, typeName, type UniValue } from './univalue.ts'

/** A JSON-RPC error as a method throws it (code, message). */
export type Thrower = (code: number, message: string) => never

const RPC_MISC_ERROR = -1
const RPC_INVALID_ADDRESS_OR_KEY = -5
const RPC_INVALID_PARAMETER = -8

// CBlockPolicyEstimator::HighestTargetTracked(LONG_HALFLIFE).
const MAX_CONF_TARGET = 1008
// The simulated transactions pay 10 sat/vB; shorter targets are estimated higher.
const BASE_FEE_PER_KVB = 10_000
// mempoolminfee and minrelaytxfee of the simulated node (sat/kvB).
const MIN_FEE_PER_KVB = 100

/** UniValue::getInt<int>: a number with a fraction or beyond int range is refused. */
function intParam(value: unknown, fail: Thrower): number {
  if (!Number.isInteger(value) || Math.abs(value as number) > 2 ** 31 - 1) fail(RPC_MISC_ERROR, 'JSON integer out of range')
  return value as number
}

/**
 * The fee estimator only knows what this process saw: it needs blocks and transactions confirmed since
 * the start. Like Core, it can estimate at most half as many blocks ahead as it has seen, answers target 1
 * as 2, and says "Insufficient data or no feerate found" (with the clamped target) when it cannot.
 */
export function estimateSmartFee(chain: Chain, [target, mode]: unknown[], fail: Thrower): UniValue {
  const confTarget = intParam(target, fail)
  if (confTarget < 1 || confTarget > MAX_CONF_TARGET) {
    fail(RPC_INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`)
  }
  if (mode !== undefined && mode !== null && !['UNSET', 'ECONOMICAL', 'CONSERVATIVE'].includes(String(mode).toUpperCase())) {
    fail(RPC_INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"')
  }
  const maxUsable = Math.min(MAX_CONF_TARGET, Math.floor(chain.blocksSinceStart / 2))
  const returned = Math.min(confTarget === 1 ? 2 : confTarget, maxUsable)
  if (returned <= 1 || chain.confirmedSinceStart === 0) {
    return { errors: ['Insufficient data or no feerate found'], blocks: returned }
  }
  const perKvB = Math.max(BASE_FEE_PER_KVB + Math.floor((2 * BASE_FEE_PER_KVB) / returned), MIN_FEE_PER_KVB)
  return { feerate: sats(perKvB), blocks: returned }
}

export const BLOCK_STATS = [
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
] as const

// Serialized output sizes plus PER_UTXO_OVERHEAD (41): P2WPKH 31+41, the witness commitment (OP_RETURN) 47+41,
// the genesis P2PK output 76+41.
const P2WPKH_UTXO = 72
const COMMITMENT_UTXO = 88
const GENESIS_UTXO = 117
// The simulated transactions spend a 50 BTC coinbase output.
const SPENT_VALUE = 5_000_000_000

/** ParseHashOrHeight: a height within the chain, or the hash of a known block. */
function blockHeight(chain: Chain, param: unknown, fail: Thrower): number {
  if (typeof param === 'number') {
    const height = intParam(param, fail)
    if (height < 0) fail(RPC_INVALID_PARAMETER, `Target block height ${height} is negative`)
    if (height > chain.height) fail(RPC_INVALID_PARAMETER, `Target block height ${height} after current tip ${chain.height}`)
    return height
  }
  if (typeof param !== 'string') fail(RPC_MISC_ERROR, `JSON value of type ${typeName(param)} is not of expected type string`)
  const hex = param as string
  if (hex.length !== 64) fail(RPC_INVALID_PARAMETER, `hash_or_height must be of length 64 (not ${hex.length}, for '${hex}')`)
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) fail(RPC_INVALID_PARAMETER, `hash_or_height must be hexadecimal string (not '${hex}')`)
  const height = chain.heightOf(hex.toLowerCase())
  if (height === null) fail(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found')
  return height as number
}

/** GetMedianTimePast: the median of the block's time and its 10 ancestors' times. */
function medianTimePast(chain: Chain, height: number): number {
  const times: number[] = []
  for (let h = height; h >= 0 && times.length < 11; h--) times.push(chain.blockAt(h)!.time)
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

export function getBlockStats(chain: Chain, [hashOrHeight, selected]: unknown[], fail: Thrower): UniValue {
  const height = blockHeight(chain, hashOrHeight, fail)
  const block = chain.blockAt(height)!
  const n = block.txs
  // Every simulated transaction is the same, so each statistic of the set is that transaction's.
  const feerate = Math.floor((TX.fee * 4) / TX.weight)
  const each = (value: number) => (n > 0 ? value : 0)
  const genesis = height === 0
  const coinbaseOuts = genesis ? 1 : 2
  const coinbaseUtxoSize = genesis ? GENESIS_UTXO : P2WPKH_UTXO + COMMITMENT_UTXO
  const all: Record<(typeof BLOCK_STATS)[number], UniValue> = {
    avgfee: each(TX.fee),
    avgfeerate: each(feerate),
    avgtxsize: each(TX.size),
    blockhash: block.hash,
    feerate_percentiles: Array(5).fill(each(feerate)),
    height,
    ins: n,
    maxfee: each(TX.fee),
    maxfeerate: each(feerate),
    maxtxsize: each(TX.size),
    medianfee: each(TX.fee),
    mediantime: medianTimePast(chain, height),
    mediantxsize: each(TX.size),
    minfee: each(TX.fee),
    minfeerate: each(feerate),
    mintxsize: each(TX.size),
    outs: coinbaseOuts + 2 * n,
    // Regtest halves the subsidy every 150 blocks.
    subsidy: Math.floor(5_000_000_000 / 2 ** Math.floor(height / 150)),
    swtotal_size: n * TX.size,
    swtotal_weight: n * TX.weight,
    swtxs: n,
    time: block.time,
    total_out: n * (SPENT_VALUE - TX.fee),
    total_size: n * TX.size,
    total_weight: n * TX.weight,
    totalfee: n * TX.fee,
    txs: n + 1,
    utxo_increase: coinbaseOuts + n,
    utxo_size_inc: coinbaseUtxoSize + n * P2WPKH_UTXO,
    utxo_increase_actual: 1 + n,
    utxo_size_inc_actual: (genesis ? GENESIS_UTXO : P2WPKH_UTXO) + n * P2WPKH_UTXO,
  }
  const names = Array.isArray(selected) ? selected : []
  const notText = names.find((stat) => typeof stat !== 'string')
  if (notText !== undefined) fail(RPC_MISC_ERROR, `JSON value of type ${typeName(notText)} is not of expected type string`)
  const stats = [...new Set(names as string[])].sort()
  if (stats.length === 0) return all
  const picked: Record<string, UniValue> = {}
  for (const stat of stats) {
    if (!Object.hasOwn(all, stat)) fail(RPC_INVALID_PARAMETER, `Invalid selected statistic '${stat}'`)
    picked[stat] = all[stat as keyof typeof all]
  }
  return picked
}

import type { RpcClient } from '../rpc/client.ts'
import { checkedReply } from '../rpc/replies.ts'
import type { NodeSettings } from '../settings/repository.ts'

/** The most blocks one request may ask for: one batch of at most this many getblockhash, then of getblockstats. */
export const MAX_BLOCKS = 50
/** Block rows kept (by hash); a block never changes, so a row is never refreshed, only evicted. */
const CACHE_SIZE = 4 * MAX_BLOCKS

/** The statistics asked of getblockstats: only what a row shows (Core computes fewer when asked for fewer). */
export const BLOCK_STATS = [
  'avgfeerate',
  'blockhash',
  'feerate_percentiles',
  'height',
  'time',
  'total_size',
  'total_weight',
  'totalfee',
  'txs',
]

export interface BlockRow {
  height: number
  hash: string
  time: number
  txs: number
  size: number
  weight: number
  total_fee: number
  avg_fee_rate: number
  median_fee_rate: number
  fee_rate_percentiles: number[]
}

export interface RecentBlocks {
  tip_height: number
  tip_hash: string
  blocks: BlockRow[]
}

function rowOf(stats: ReturnType<typeof checkedReply<'getblockstats'>>): BlockRow {
  return {
    height: stats.height,
    hash: stats.blockhash,
    time: stats.time,
    txs: stats.txs,
    size: stats.total_size,
    weight: stats.total_weight,
    total_fee: stats.totalfee,
    avg_fee_rate: stats.avgfeerate,
    median_fee_rate: stats.feerate_percentiles[2] as number,
    fee_rate_percentiles: stats.feerate_percentiles,
  }
}

/**
 * The last blocks: getblockcount and getbestblockhash, then (only when the tip moved) one batch of
 * getblockhash for the heights and one of getblockstats for the blocks not yet cached. Concurrent
 * callers asking for the same count share the round in flight.
 */
export function createRecentBlocks(rpc: RpcClient, loadSettings: () => Promise<NodeSettings>) {
  const byHash = new Map<string, BlockRow>()
  let last: { tip: string; count: number; answer: RecentBlocks } | null = null
  let node = ''
  const inFlight = new Map<number, Promise<RecentBlocks>>()

  function remember(row: BlockRow) {
    byHash.delete(row.hash)
    byHash.set(row.hash, row)
    // A Map keeps insertion order: the first key is the least recently used.
    while (byHash.size > CACHE_SIZE) byHash.delete(byHash.keys().next().value as string)
  }

  async function read(count: number): Promise<RecentBlocks> {
    const settings = await loadSettings()
    // Another node may be on another chain (or be a test node reusing hashes): its blocks start afresh.
    if (settings.rpc_url !== node) {
      node = settings.rpc_url
      byHash.clear()
      last = null
    }
    const options = { settings, wallet: '' }
    const [tipCount, tipHash] = await rpc.batch([{ method: 'getblockcount' }, { method: 'getbestblockhash' }], options)
    if (!tipCount?.ok) throw tipCount?.error
    if (!tipHash?.ok) throw tipHash?.error
    const height = checkedReply('getblockcount', tipCount.result)
    const best = checkedReply('getbestblockhash', tipHash.result)
    if (last && last.tip === best && last.count >= count) {
      return { ...last.answer, blocks: last.answer.blocks.slice(0, count) }
    }
    const heights = Array.from({ length: Math.min(count, height + 1) }, (_, i) => height - i)
    const hashes = (
      await rpc.batch(
        heights.map((h) => ({ method: 'getblockhash', params: [h] })),
        options,
      )
    ).map((outcome) => {
      if (!outcome.ok) throw outcome.error
      return checkedReply('getblockhash', outcome.result)
    })
    const missing = hashes.filter((hash) => !byHash.has(hash))
    const stats = await rpc.batch(
      missing.map((hash) => ({ method: 'getblockstats', params: [hash, BLOCK_STATS] })),
      options,
    )
    for (const outcome of stats) {
      if (!outcome.ok) throw outcome.error
      remember(rowOf(checkedReply('getblockstats', outcome.result)))
    }
    const blocks = hashes.map((hash) => byHash.get(hash)).filter((row): row is BlockRow => row !== undefined)
    const answer = { tip_height: height, tip_hash: best, blocks }
    last = { tip: best, count, answer }
    return answer
  }

  return function recentBlocks(count: number): Promise<RecentBlocks> {
    let pending = inFlight.get(count)
    if (!pending) {
      pending = read(count).finally(() => inFlight.delete(count))
      inFlight.set(count, pending)
    }
    return pending
  }
}

export type RecentBlocksReader = ReturnType<typeof createRecentBlocks>

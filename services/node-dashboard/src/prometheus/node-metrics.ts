import { Counter, Gauge, type Registry } from 'prom-client'
import type { Summary } from '../dashboard/summary.ts'
import { PEER_NETWORKS } from '../peers/counts.ts'

type Json = Record<string, unknown>

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)
const group = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {})

/** Wallet balance states of getbalances' `mine` group. */
const BALANCE_STATES = ['trusted', 'untrusted_pending', 'immature'] as const

/**
 * The node's metrics, set from the sampler's latest round (never read at scrape time). A value the node did not
 * report is left out rather than shown as 0, and every node metric but `bitcoind_up` is left out when the round
 * did not reach the node.
 */
export function createNodeMetrics(registry: Registry) {
  const registers = [registry]
  const gauge = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers })
  const up = gauge('bitcoind_up', '1 when the latest sampler round read the node, 0 when it failed to')
  const sampledAt = gauge('bitcoind_sample_timestamp_seconds', 'When the latest round read these values (unix time)')
  const blocks = gauge('bitcoind_blocks', 'Height of the most-work fully validated chain (getblockchaininfo blocks)')
  const headers = gauge('bitcoind_headers', 'Height of the most-work header chain (getblockchaininfo headers)')
  const progress = gauge('bitcoind_verification_progress', 'Estimated chain verification progress, 0 to 1')
  const ibd = gauge('bitcoind_initial_block_download', '1 while the node is in initial block download')
  const difficulty = gauge('bitcoind_difficulty', 'Proof-of-work difficulty of the tip')
  const hashRate = gauge('bitcoind_network_hashes_per_second', 'Estimated network hash rate (getmininginfo networkhashps)')
  const peers = gauge('bitcoind_peers', 'Connected peers by direction (inbound, outbound) and network (getpeerinfo)', [
    'direction',
    'network',
  ])
  const connections = gauge('bitcoind_connections', 'Connections by direction as getnetworkinfo counts them', ['direction'])
  const mempoolTx = gauge('bitcoind_mempool_transactions', 'Transactions in the mempool')
  const mempoolVbytes = gauge('bitcoind_mempool_vbytes', 'Sum of the virtual sizes of the mempool transactions')
  const mempoolUsage = gauge('bitcoind_mempool_usage_bytes', 'Memory the mempool takes')
  const mempoolMax = gauge('bitcoind_mempool_max_bytes', 'Maximum memory of the mempool (-maxmempool)')
  const mempoolMinFee = gauge('bitcoind_mempool_min_fee_btc_per_kvb', 'Lowest fee rate the mempool accepts, BTC/kvB')
  const uptime = gauge('bitcoind_uptime_seconds', 'Seconds since the node started')
  const feeEstimate = gauge(
    'bitcoind_fee_estimate_sat_per_vbyte',
    'estimatesmartfee by confirmation target in blocks (1, 3, 6, 12, 144), sat/vB',
    ['target_blocks'],
  )
  const balance = gauge('bitcoind_wallet_balance_btc', 'Balance of the rpc_wallet wallet by state, BTC', ['state'])
  // Totals the node counts since it started: counters (a node restart is a counter reset to Prometheus).
  const sent = new Counter({ name: 'bitcoind_sent_bytes_total', help: 'Bytes the node sent to peers', registers })
  const received = new Counter({ name: 'bitcoind_received_bytes_total', help: 'Bytes the node received', registers })
  const all = [sampledAt, blocks, headers, progress, ibd, difficulty, hashRate, peers, connections]
  const rest = [mempoolTx, mempoolVbytes, mempoolUsage, mempoolMax, mempoolMinFee, uptime, feeEstimate, balance, sent, received]

  const put = (metric: Gauge, value: unknown) => {
    const n = num(value)
    if (n !== null) metric.set(n)
  }
  const total = (metric: Counter, value: unknown) => {
    const n = num(value)
    if (n !== null && n >= 0) metric.inc(n)
  }

  function clear() {
    // reset() leaves an unlabelled metric at 0; remove({}) takes that value out too.
    for (const metric of [...all, ...rest, up]) {
      metric.reset()
      metric.remove({})
    }
  }

  function show(s: Summary) {
    up.set(1)
    sampledAt.set(Date.parse(s.updated_at) / 1000)
    put(blocks, s.chain.blocks)
    put(headers, s.chain.headers)
    put(progress, s.chain.verificationprogress)
    if (typeof s.chain.initialblockdownload === 'boolean') ibd.set(s.chain.initialblockdownload ? 1 : 0)
    put(difficulty, s.chain.difficulty)
    put(hashRate, s.mining.networkhashps)
    // Every network is present (0 when none), so a series never vanishes while the node is read.
    if (s.peers) {
      for (const network of PEER_NETWORKS) {
        peers.set({ direction: 'inbound', network }, s.peers.by_network[network].inbound)
        peers.set({ direction: 'outbound', network }, s.peers.by_network[network].outbound)
      }
    }
    // Also without getpeerinfo (a -rpcwhitelist without it); older nodes report only the total `connections`.
    const inbound = num(s.network.connections_in)
    const outbound = num(s.network.connections_out) ?? num(s.network.connections)
    if (inbound !== null) connections.set({ direction: 'inbound' }, inbound)
    if (outbound !== null) connections.set({ direction: 'outbound' }, outbound)
    put(mempoolTx, s.mempool.size)
    put(mempoolVbytes, s.mempool.bytes)
    put(mempoolUsage, s.mempool.usage)
    put(mempoolMax, s.mempool.maxmempool)
    put(mempoolMinFee, s.mempool.mempoolminfee)
    put(uptime, s.uptime)
    for (const estimate of s.fee_estimates ?? []) {
      if (estimate.sat_per_vb !== null) feeEstimate.set({ target_blocks: String(estimate.conf_target) }, estimate.sat_per_vb)
    }
    total(sent, s.network.totalbytessent)
    total(received, s.network.totalbytesrecv)
    if (s.wallet) {
      const mine = group(group(s.wallet.balances).mine)
      for (const state of BALANCE_STATES) {
        const value = num(mine[state])
        if (value !== null) balance.set({ state }, value)
      }
      // Nodes without getbalances report the trusted balance in getwalletinfo.
      const legacy = num(s.wallet.balance)
      if (num(mine.trusted) === null && legacy !== null) balance.set({ state: 'trusted' }, legacy)
    }
  }

  // Nothing is known of the node until the first round.
  clear()

  return {
    /** A round that read the node: every value it reported. */
    read(summary: Summary) {
      clear()
      show(summary)
    },
    /** A round that tried and failed to read the node. */
    unreachable() {
      clear()
      up.set(0)
    },
    /** No round of this instance says anything about the node (not configured, another instance samples). */
    unknown() {
      clear()
    },
  }
}

import { countPeers, type PeerCounts } from '../peers/counts.ts'
import { readPeerInfo } from '../peers/node-peers.ts'
import type { RpcClient } from '../rpc/client.ts'
import { isRpcError } from '../rpc/errors.ts'
import { checkedReply } from '../rpc/replies.ts'
import type { NodeSettings } from '../settings/repository.ts'
import { type FeeEstimate, feeEstimateCalls, feeEstimates } from './fee-estimates.ts'

type Json = Record<string, unknown>

export interface Summary {
  chain: Json
  network: Json
  mempool: Json
  mining: Json
  /** Seconds since the node started; null on forks without the `uptime` method. */
  uptime: number | null
  /** getwalletinfo with `balances` (getbalances); null when no rpc_wallet is set or the wallet failed. */
  wallet: Json | null
  /** Why the wallet group is null although rpc_wallet is set. */
  wallet_error: string | null
  /** Connected peers by direction and network (getpeerinfo); null when that call failed. */
  peers: PeerCounts | null
  /** Why peers is null. */
  peers_error: string | null
  /** estimatesmartfee for 1, 3, 6, 12 and 144 blocks; null on nodes without the method. */
  fee_estimates: FeeEstimate[] | null
  updated_at: string
}

const CORE = ['getblockchaininfo', 'getnetworkinfo', 'getnettotals', 'getmempoolinfo', 'getmininginfo', 'uptime'] as const

/**
 * One round: a JSON-RPC batch for the node groups (fee estimates included), getpeerinfo on its own and, when rpc_wallet is set, a
 * batch on the wallet endpoint, all in flight at once; so the round costs about one call's latency.
 * getpeerinfo is apart because it is the one large answer (its own size cap) and because a node whose
 * -rpcwhitelist lacks it refuses a whole batch naming it: the rest of the summary must not depend on it.
 */
async function fetchSummary(rpc: RpcClient, settings: NodeSettings): Promise<Summary> {
  const core = rpc.batch([...CORE.map((method) => ({ method })), ...feeEstimateCalls], { settings, wallet: '' })
  const wallet = settings.rpc_wallet
    ? rpc.batch([{ method: 'getwalletinfo' }, { method: 'getbalances' }], { settings, wallet: settings.rpc_wallet }).then(
        ([info, balances]) => {
          if (!info.ok) return { wallet: null, wallet_error: info.error.message }
          if (!balances.ok) return { wallet: null, wallet_error: balances.error.message }
          // A malformed wallet answer is a node fault like any other (502), not a wallet setting to fix.
          const wallet = { ...checkedReply('getwalletinfo', info.result), balances: checkedReply('getbalances', balances.result) }
          return { wallet, wallet_error: null }
        },
        // The node answered the rest; a wallet endpoint the node lacks should not hide it.
        (error) => {
          if (isRpcError(error, 'http') || isRpcError(error, 'rpc')) return { wallet: null, wallet_error: error.message }
          throw error
        },
      )
    : Promise.resolve({ wallet: null, wallet_error: null })
  const peers = readPeerInfo(rpc, settings).then(
    (info) => ({ peers: countPeers(info), peers_error: null }),
    (error) => {
      if (isRpcError(error)) return { peers: null, peers_error: error.message }
      throw error
    },
  )
  const [outcomes, walletGroup, peersGroup] = await Promise.all([core, wallet, peers])
  for (const [i, method] of CORE.entries()) {
    const outcome = outcomes[i]
    // Forks without `uptime` (Dogecoin 1.14) answer "Method not found".
    if (!outcome.ok && !(method === 'uptime' && outcome.error.rpcCode === -32601)) throw outcome.error
  }
  const resultOf = (method: (typeof CORE)[number]) => {
    const outcome = outcomes[CORE.indexOf(method)]
    return outcome.ok ? outcome.result : undefined
  }
  const uptime = outcomes[CORE.indexOf('uptime')]
  return {
    chain: checkedReply('getblockchaininfo', resultOf('getblockchaininfo')),
    network: {
      ...checkedReply('getnetworkinfo', resultOf('getnetworkinfo')),
      ...checkedReply('getnettotals', resultOf('getnettotals')),
    },
    mempool: checkedReply('getmempoolinfo', resultOf('getmempoolinfo')),
    mining: checkedReply('getmininginfo', resultOf('getmininginfo')),
    uptime: uptime.ok ? checkedReply('uptime', uptime.result) : null,
    ...walletGroup,
    ...peersGroup,
    fee_estimates: feeEstimates(outcomes.slice(CORE.length)),
    updated_at: new Date().toISOString(),
  }
}

/** Concurrent callers share the round in flight instead of starting their own. */
export function sharedSummary(rpc: RpcClient, loadSettings: () => Promise<NodeSettings>) {
  let inFlight: Promise<Summary> | null = null
  return function get(): Promise<Summary> {
    if (!inFlight) {
      inFlight = loadSettings()
        .then((settings) => fetchSummary(rpc, settings))
        .finally(() => {
          inFlight = null
        })
    }
    return inFlight
  }
}

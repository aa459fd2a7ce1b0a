import type { RpcClient } from '../rpc/client.ts'
import { isRpcError } from '../rpc/errors.ts'
import type { NodeSettings } from '../settings/repository.ts'

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
  updated_at: string
}

const CORE = ['getblockchaininfo', 'getnetworkinfo', 'getnettotals', 'getmempoolinfo', 'getmininginfo', 'uptime'] as const

/**
 * One round: a JSON-RPC batch for the node groups and, when rpc_wallet is set, a second batch on
 * the wallet endpoint, both in flight at once; so the round costs about one call's latency.
 */
export async function fetchSummary(rpc: RpcClient, settings: NodeSettings): Promise<Summary> {
  const core = rpc.batch(
    CORE.map((method) => ({ method })),
    { settings, wallet: '' },
  )
  const wallet = settings.rpc_wallet
    ? rpc.batch([{ method: 'getwalletinfo' }, { method: 'getbalances' }], { settings, wallet: settings.rpc_wallet }).then(
        ([info, balances]) => {
          if (!info.ok) return { wallet: null, wallet_error: info.error.message }
          if (!balances.ok) return { wallet: null, wallet_error: balances.error.message }
          return { wallet: { ...(info.result as Json), balances: balances.result as Json }, wallet_error: null }
        },
        // The node answered the rest; a wallet endpoint the node lacks should not hide it.
        (error) => {
          if (isRpcError(error, 'http') || isRpcError(error, 'rpc')) return { wallet: null, wallet_error: error.message }
          throw error
        },
      )
    : Promise.resolve({ wallet: null, wallet_error: null })
  const [outcomes, walletGroup] = await Promise.all([core, wallet])
  const results = new Map<string, unknown>()
  for (const [i, method] of CORE.entries()) {
    const outcome = outcomes[i]
    if (outcome.ok) results.set(method, outcome.result)
    // Forks without `uptime` (Dogecoin 1.14) answer "Method not found".
    else if (method === 'uptime' && outcome.error.rpcCode === -32601) results.set(method, null)
    else throw outcome.error
  }
  return {
    chain: results.get('getblockchaininfo') as Json,
    network: { ...(results.get('getnetworkinfo') as Json), ...(results.get('getnettotals') as Json) },
    mempool: results.get('getmempoolinfo') as Json,
    mining: results.get('getmininginfo') as Json,
    uptime: (results.get('uptime') as number | null) ?? null,
    ...walletGroup,
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

import type { RpcClient } from '../rpc/client.ts'
import { checkedReply } from '../rpc/replies.ts'
import type { NodeSettings } from '../settings/repository.ts'

/** Lower edges (sat/vB) of the distribution's buckets; the last is open-ended. */
export const FEE_RATE_EDGES = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 40, 50, 70, 100, 150, 200, 300, 500, 1000]
// A verbose mempool entry is about 600 bytes of JSON; anything far above that per transaction is refused.
const BYTES_PER_ENTRY = 2048

export interface FeeBucket {
  min_fee_rate: number
  max_fee_rate: number | null
  count: number
  vsize: number
}

export interface MempoolFees {
  /** 'ok': buckets hold the whole mempool; 'too-large': the mempool exceeds the limit and was not fetched. */
  state: 'ok' | 'too-large'
  mempool_size: number
  max_transactions: number
  fetched_at: string
  /** The answer is reused until then (no node call). */
  next_fetch_at: string
  buckets: FeeBucket[]
}

export interface MempoolFeesOptions {
  maxTransactions: number
  minIntervalSeconds: number
}

export function feeBuckets(entries: Iterable<{ vsize: number; fees: { base: number } }>): FeeBucket[] {
  const buckets = FEE_RATE_EDGES.map((min, i) => ({
    min_fee_rate: min,
    max_fee_rate: FEE_RATE_EDGES[i + 1] ?? null,
    count: 0,
    vsize: 0,
  }))
  for (const { vsize, fees } of entries) {
    // Satoshis exactly (amounts have 8 decimals), then per vbyte.
    const rate = vsize > 0 ? Math.round(fees.base * 1e8) / vsize : 0
    let i = FEE_RATE_EDGES.length - 1
    while (i > 0 && rate < (FEE_RATE_EDGES[i] as number)) i--
    const bucket = buckets[i] as FeeBucket
    bucket.count++
    bucket.vsize += vsize
  }
  return buckets
}

/**
 * The mempool's fee-rate distribution at a bounded cost: at most one fetch per minIntervalSeconds (every
 * caller in between gets the same answer), and getrawmempool (verbose) only while getmempoolinfo counts at
 * most maxTransactions; a larger mempool answers 'too-large' after that one cheap call.
 */
export function createMempoolFees(rpc: RpcClient, loadSettings: () => Promise<NodeSettings>, options: MempoolFeesOptions) {
  let cached: { answer: MempoolFees; until: number; rpcUrl: string } | null = null
  let inFlight: Promise<MempoolFees> | null = null

  async function fetchFees(settings: NodeSettings): Promise<MempoolFees> {
    const call = { settings, wallet: '' }
    const info = checkedReply('getmempoolinfo', await rpc.call('getmempoolinfo', [], call))
    const now = Date.now()
    const answer = (state: MempoolFees['state'], buckets: FeeBucket[]): MempoolFees => ({
      state,
      mempool_size: info.size,
      max_transactions: options.maxTransactions,
      fetched_at: new Date(now).toISOString(),
      next_fetch_at: new Date(now + options.minIntervalSeconds * 1000).toISOString(),
      buckets,
    })
    if (info.size > options.maxTransactions) return answer('too-large', [])
    // The mempool may grow between the two calls: the reply cap holds whatever it became.
    const maxReplyBytes = Math.max(options.maxTransactions, 1) * BYTES_PER_ENTRY
    const mempool = checkedReply('getrawmempool', await rpc.call('getrawmempool', [true], { ...call, maxReplyBytes }))
    return answer('ok', feeBuckets(Object.values(mempool)))
  }

  return async function mempoolFees(): Promise<MempoolFees> {
    const settings = await loadSettings()
    if (cached && cached.rpcUrl === settings.rpc_url && Date.now() < cached.until) return cached.answer
    if (!inFlight) {
      inFlight = fetchFees(settings)
        .then((answer) => {
          cached = { answer, until: Date.parse(answer.next_fetch_at), rpcUrl: settings.rpc_url }
          return answer
        })
        .finally(() => {
          inFlight = null
        })
    }
    return inFlight
  }
}

export type MempoolFeesReader = ReturnType<typeof createMempoolFees>

// getrawmempool as Core v30 answers it (src/rpc/mempool.cpp: MempoolToJSON, entryToJSON), over the simulated
// mempool: every transaction is like the captured one (141 vB, 1410 sat), unconfirmed and unrelated to the others.
import { createHash } from 'node:crypto'
import { type Chain, TX } from './chain.ts'
import type { Thrower } from './fees.ts'
import { sats, type UniValue } from './univalue.ts'

const RPC_INVALID_PARAMETER = -8

const hash = (text: string) => createHash('sha256').update(text).digest('hex')

export function getRawMempool(chain: Chain, [verbose, sequence]: unknown[], fail: Thrower): UniValue {
  const arrivals = chain.mempoolArrivals()
  // Transactions are named by the block they wait for and their place in the queue: stable between calls.
  const txids = arrivals.map((_, i) => hash(`simulated-tx-${chain.height}-${i}`))
  if (verbose === true) {
    if (sequence === true) fail(RPC_INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.')
    const fee = sats(TX.fee)
    return Object.fromEntries(
      txids.map((txid, i) => [
        txid,
        {
          vsize: TX.vsize,
          weight: TX.weight,
          time: Math.floor(arrivals[i] / 1000),
          height: chain.height,
          descendantcount: 1,
          descendantsize: TX.vsize,
          ancestorcount: 1,
          ancestorsize: TX.vsize,
          wtxid: hash(`simulated-wtx-${txid}`),
          fees: { base: fee, modified: fee, ancestor: fee, descendant: fee },
          depends: [],
          spentby: [],
          // The wallet signals replaceability (as the captured sendtoaddress did); nothing is relayed without peers.
          'bip125-replaceable': true,
          unbroadcast: true,
        },
      ]),
    )
  }
  if (sequence === true) return { txids, mempool_sequence: chain.confirmedSinceStart + txids.length }
  return txids
}

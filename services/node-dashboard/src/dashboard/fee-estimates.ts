import type { BatchOutcome } from '../rpc/client.ts'
import { checkedReply } from '../rpc/replies.ts'

/** The confirmation targets (blocks) the summary asks estimatesmartfee for. */
export const FEE_TARGETS = [1, 3, 6, 12, 144] as const

export interface FeeEstimate {
  conf_target: number
  /** BTC/kvB as the node answered; null when it has no estimate. */
  feerate: number | null
  /** The same rate in sat/vB (what wallets show). */
  sat_per_vb: number | null
  /** The target the estimate is for (the node clamps it); null when the call failed. */
  blocks: number | null
  errors: string[]
}

export const feeEstimateCalls = FEE_TARGETS.map((target) => ({ method: 'estimatesmartfee', params: [target] }))

/**
 * The estimates from the batch outcomes of feeEstimateCalls, or null on a node without estimatesmartfee.
 * A target the node refuses keeps its error text: the rest of the summary still stands.
 */
export function feeEstimates(outcomes: BatchOutcome[]): FeeEstimate[] | null {
  if (outcomes.every((o) => !o.ok && o.error.rpcCode === -32601)) return null
  return FEE_TARGETS.map((conf_target, i) => {
    const outcome = outcomes[i] as BatchOutcome
    if (!outcome.ok) {
      return {
        conf_target,
        feerate: null,
        sat_per_vb: null,
        blocks: null,
        errors: [outcome.error.rpcMessage ?? outcome.error.message],
      }
    }
    const reply = checkedReply('estimatesmartfee', outcome.result)
    // Core 0.14-era nodes (Dogecoin 1.14) answer feerate -1 instead of an errors array.
    const feerate = reply.feerate !== undefined && reply.feerate >= 0 ? reply.feerate : null
    const errors = reply.errors ?? (feerate === null ? ['no fee estimate'] : [])
    return {
      conf_target,
      feerate,
      // Exact in sat/kvB, then per vbyte: 0.0001 BTC/kvB is 10 sat/vB, not 10.000000000000002.
      sat_per_vb: feerate === null ? null : Math.round(feerate * 1e8) / 1000,
      blocks: reply.blocks,
      errors,
    }
  })
}

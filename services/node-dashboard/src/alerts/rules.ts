/**
 * What each alert rule watches and when it holds, as pure functions of one sampler round and the
 * node state kept between rounds (so they are tested without a clock or a database).
 */

import { metricsFromSummary } from '../dashboard/metrics.ts'
import type { Summary } from '../dashboard/summary.ts'
import { isRpcError } from '../rpc/errors.ts'

export const RULE_KINDS = [
  'node_unreachable',
  'tip_stalled',
  'peers_below',
  'initial_download',
  'mempool_above',
  'wallet_balance_below',
] as const

export type RuleKind = (typeof RULE_KINDS)[number]

/** The unit and the strict range of each kind's N (null: the kind takes no N). */
export const THRESHOLDS: Record<
  RuleKind,
  { unit: string; integer: boolean; min: number; exclusiveMin: boolean; max: number } | null
> = {
  node_unreachable: { unit: 'minutes', integer: true, min: 0, exclusiveMin: false, max: 10_080 },
  tip_stalled: { unit: 'minutes', integer: true, min: 1, exclusiveMin: false, max: 10_080 },
  peers_below: { unit: 'peers', integer: true, min: 1, exclusiveMin: false, max: 10_000 },
  initial_download: null,
  mempool_above: { unit: 'MB', integer: false, min: 0, exclusiveMin: true, max: 100_000 },
  wallet_balance_below: { unit: 'BTC', integer: false, min: 0, exclusiveMin: true, max: 21_000_000 },
}

/** Why a threshold is not acceptable for a kind, or null when it is. */
export function thresholdProblem(kind: RuleKind, threshold: number | null | undefined): string | null {
  const range = THRESHOLDS[kind]
  if (range === null) return threshold === null || threshold === undefined ? null : `${kind} takes no threshold (send null)`
  if (typeof threshold !== 'number' || !Number.isFinite(threshold)) return `${kind} needs a threshold in ${range.unit}`
  if (range.integer && !Number.isInteger(threshold)) return `must be a whole number of ${range.unit}`
  const low = range.exclusiveMin ? threshold <= range.min : threshold < range.min
  if (low || threshold > range.max) {
    return `must be ${range.exclusiveMin ? 'above' : 'at least'} ${range.min} and at most ${range.max} ${range.unit}`
  }
  return null
}

/** One sampler round as the rules see it. */
export interface Observation {
  at: Date
  /** false when the round got no usable answer (down, stalled, refused, malformed); a warming-up node is reachable. */
  reachable: boolean
  /** Why the round failed (an RpcError message: never a secret), when it did. */
  failure: string | null
  warmup: string | null
  initialBlockDownload: boolean | null
  height: number | null
  peers: number | null
  mempoolBytes: number | null
  walletBalance: number | null
}

export function observe(at: Date, summary: Summary | null, error: unknown): Observation {
  const empty = { initialBlockDownload: null, height: null, peers: null, mempoolBytes: null, walletBalance: null }
  if (!summary) {
    const message = error instanceof Error ? error.message : 'the round failed'
    // Error -28: the node answers but is still starting (loading blocks, verifying, ...).
    if (isRpcError(error, 'warmup')) return { at, reachable: true, failure: null, warmup: error.rpcMessage ?? message, ...empty }
    return { at, reachable: false, failure: message, warmup: null, ...empty }
  }
  const metrics = metricsFromSummary(summary)
  const connections = typeof summary.network.connections === 'number' ? summary.network.connections : null
  const ibd = summary.chain.initialblockdownload
  return {
    at,
    reachable: true,
    failure: null,
    warmup: null,
    initialBlockDownload: typeof ibd === 'boolean' ? ibd : null,
    height: metrics.height,
    peers: connections ?? (metrics.peers_in ?? 0) + (metrics.peers_out ?? 0),
    mempoolBytes: metrics.mempool_bytes,
    walletBalance: metrics.wallet_balance,
  }
}

/** What is kept between rounds (one row in the database). */
export interface NodeState {
  lastRoundAt: Date | null
  unreachableSince: Date | null
  tipHeight: number | null
  tipSince: Date | null
}

/** The node state after a round. */
export function nextNodeState(state: NodeState, o: Observation): NodeState {
  if (!o.reachable) return { ...state, lastRoundAt: o.at, unreachableSince: state.unreachableSince ?? o.at }
  const moved = o.height !== null && o.height !== state.tipHeight
  return {
    lastRoundAt: o.at,
    unreachableSince: null,
    tipHeight: moved ? o.height : state.tipHeight,
    tipSince: moved || state.tipSince === null ? o.at : state.tipSince,
  }
}

export interface Verdict {
  /** true: the condition holds; false: it does not; null: this round cannot tell (the state stays). */
  holds: boolean | null
  /** What was seen, for the notification ("12 peers", "unreachable for 6 min: ..."). */
  detail: string
}

const minutesSince = (from: Date, to: Date) => (to.getTime() - from.getTime()) / 60_000
const round1 = (n: number) => Math.round(n * 10) / 10

/** Whether a rule's condition holds after this round (`state` is the state after the round). */
export function judge(kind: RuleKind, threshold: number | null, state: NodeState, o: Observation): Verdict {
  const n = threshold ?? 0
  switch (kind) {
    case 'node_unreachable': {
      if (o.reachable || !state.unreachableSince) return { holds: false, detail: 'the node answers' }
      const minutes = minutesSince(state.unreachableSince, o.at)
      return { holds: minutes >= n, detail: `no answer for ${round1(minutes)} min: ${o.failure ?? 'unknown failure'}` }
    }
    case 'tip_stalled': {
      // A node that does not answer says nothing about its tip; the unreachable rule covers it.
      if (!o.reachable || o.warmup !== null || !state.tipSince || state.tipHeight === null) {
        return { holds: null, detail: 'no tip seen in this round' }
      }
      const minutes = minutesSince(state.tipSince, o.at)
      return { holds: minutes >= n, detail: `tip at height ${state.tipHeight} for ${round1(minutes)} min` }
    }
    case 'peers_below':
      if (o.peers === null) return { holds: null, detail: 'no peer count in this round' }
      return { holds: o.peers < n, detail: `${o.peers} peer${o.peers === 1 ? '' : 's'} connected` }
    case 'initial_download':
      if (!o.reachable) return { holds: null, detail: 'no answer in this round' }
      if (o.warmup !== null) return { holds: true, detail: `warming up: ${o.warmup}` }
      if (o.initialBlockDownload === null) return { holds: null, detail: 'the node does not report initialblockdownload' }
      return {
        holds: o.initialBlockDownload,
        detail: o.initialBlockDownload ? `in initial block download at height ${o.height ?? '?'}` : 'synced and ready',
      }
    case 'mempool_above':
      if (o.mempoolBytes === null) return { holds: null, detail: 'no mempool size in this round' }
      return { holds: o.mempoolBytes > n * 1_000_000, detail: `mempool at ${round1(o.mempoolBytes / 1_000_000)} MB` }
    case 'wallet_balance_below':
      if (o.walletBalance === null) return { holds: null, detail: 'no wallet balance in this round' }
      return { holds: o.walletBalance < n, detail: `wallet balance ${o.walletBalance} BTC` }
  }
}

/** "Node unreachable for 5 minutes", the rule as a sentence. */
export function describeRule(kind: RuleKind, threshold: number | null): string {
  switch (kind) {
    case 'node_unreachable':
      return `Node unreachable for ${threshold} minute${threshold === 1 ? '' : 's'}`
    case 'tip_stalled':
      return `Tip not advancing for ${threshold} minute${threshold === 1 ? '' : 's'}`
    case 'peers_below':
      return `Fewer than ${threshold} peer${threshold === 1 ? '' : 's'}`
    case 'initial_download':
      return 'Node in initial block download or warm-up'
    case 'mempool_above':
      return `Mempool above ${threshold} MB`
    case 'wallet_balance_below':
      return `Wallet balance below ${threshold} BTC`
  }
}

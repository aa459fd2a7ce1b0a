import type { Summary } from './summary.ts'

/** The numbers the sampler stores per tick (null when the node does not report one). */
export interface MetricSample {
  height: number | null
  headers: number | null
  verification_progress: number | null
  difficulty: number | null
  mempool_tx: number | null
  mempool_bytes: number | null
  mempool_usage: number | null
  peers_in: number | null
  peers_out: number | null
  network_hashps: number | null
  bytes_sent: number | null
  bytes_recv: number | null
  wallet_balance: number | null
  /** estimatesmartfee for 1, 3, 6, 12 and 144 blocks, in sat/vB. */
  fee_rate_1: number | null
  fee_rate_3: number | null
  fee_rate_6: number | null
  fee_rate_12: number | null
  fee_rate_144: number | null
}

export const METRIC_NAMES = [
  'height',
  'headers',
  'verification_progress',
  'difficulty',
  'mempool_tx',
  'mempool_bytes',
  'mempool_usage',
  'peers_in',
  'peers_out',
  'network_hashps',
  'bytes_sent',
  'bytes_recv',
  'wallet_balance',
  'fee_rate_1',
  'fee_rate_3',
  'fee_rate_6',
  'fee_rate_12',
  'fee_rate_144',
] as const satisfies readonly (keyof MetricSample)[]

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

const feeRate = (s: Summary, target: number) => s.fee_estimates?.find((e) => e.conf_target === target)?.sat_per_vb ?? null

export function metricsFromSummary(s: Summary): MetricSample {
  const mine = (s.wallet?.balances as { mine?: { trusted?: unknown } } | undefined)?.mine
  return {
    height: num(s.chain.blocks),
    headers: num(s.chain.headers),
    verification_progress: num(s.chain.verificationprogress),
    difficulty: num(s.chain.difficulty),
    mempool_tx: num(s.mempool.size),
    mempool_bytes: num(s.mempool.bytes),
    mempool_usage: num(s.mempool.usage),
    // Older nodes report only the total `connections`.
    peers_in: num(s.network.connections_in),
    peers_out: num(s.network.connections_out) ?? num(s.network.connections),
    network_hashps: num(s.mining.networkhashps),
    bytes_sent: num(s.network.totalbytessent),
    bytes_recv: num(s.network.totalbytesrecv),
    wallet_balance: num(mine?.trusted) ?? num(s.wallet?.balance),
    fee_rate_1: feeRate(s, 1),
    fee_rate_3: feeRate(s, 3),
    fee_rate_6: feeRate(s, 6),
    fee_rate_12: feeRate(s, 12),
    fee_rate_144: feeRate(s, 144),
  }
}

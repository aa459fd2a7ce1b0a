import { randomUUID } from 'node:crypto'
import type { MetricsRepository } from '../history/repository.ts'
import type { LeaseRepository } from '../leases/repository.ts'
import { isRpcError } from '../rpc/errors.ts'
import type { NodeSettings } from '../settings/repository.ts'
import { type MetricSample, metricsFromSummary } from './metrics.ts'
import type { Summary } from './summary.ts'

const LEASE = 'metrics-sampler'

export interface SamplerOptions {
  leases: LeaseRepository
  metrics: MetricsRepository
  settings: () => Promise<NodeSettings>
  summary: () => Promise<Summary>
  intervalSeconds: number
  retentionDays: number
  log: { warn: (obj: unknown, msg?: string) => void; debug: (obj: unknown, msg?: string) => void }
  /** Told every round's outcome, the summary it read (null when none) and why it failed. */
  onRound?: (round: SampleRound) => void
}

export type SampleOutcome = 'sampled' | 'not-leader' | 'incomplete-settings' | 'failed'

/** What the last successful round read: the whole summary (peer counts included) and the row it stored. */
export interface SampledRound {
  sampled_at: Date
  summary: Summary
  metrics: MetricSample
}

/** One round as its listeners see it: the summary, or why the node gave none. */
export interface SamplerRound {
  at: Date
  summary: Summary | null
  error: unknown
}

export type RoundListener = (round: SamplerRound) => Promise<unknown>

export interface SampleRound {
  outcome: SampleOutcome
  /** Whether this instance held the sampler lease in this round. */
  leader: boolean
  /** The node's state this round read; null when it did not reach the node. */
  summary: Summary | null
  /** A failed round: the step that failed (reading the node, or the database) and its error. */
  failure: { step: 'node' | 'database'; error: unknown } | null
}

/**
 * Records one metrics row per interval while rpc_url is set. Instances share a lease row so only
 * one samples at a time; a leader that dies is replaced once its lease (3 intervals) runs out.
 */
export function createSampler(options: SamplerOptions) {
  const holder = randomUUID()
  const leaseSeconds = Math.max(3 * options.intervalSeconds, 10)
  let timer: NodeJS.Timeout | null = null
  let running: Promise<unknown> = Promise.resolve()
  let latest: SampledRound | null = null
  const listeners: RoundListener[] = []

  // Listeners run in the leader's round, in order; one that fails does not stop the others or the sampler.
  async function announce(round: SamplerRound): Promise<void> {
    for (const listener of listeners) {
      await listener(round).catch((error) => options.log.warn({ err: error }, 'sampler round listener failed'))
    }
  }

  async function sampleRound(): Promise<SampleRound> {
    const settings = await options.settings()
    if (!settings.rpc_url) return { outcome: 'incomplete-settings', leader: false, summary: null, failure: null }
    if (!(await options.leases.take(LEASE, holder, leaseSeconds))) {
      return { outcome: 'not-leader', leader: false, summary: null, failure: null }
    }
    let summary: Summary | null = null
    try {
      summary = await options.summary().catch(async (error) => {
        await announce({ at: new Date(), summary: null, error })
        throw error
      })
      const round = { sampled_at: new Date(summary.updated_at), summary, metrics: metricsFromSummary(summary) }
      await options.metrics.insert(round.sampled_at, round.metrics)
      latest = round
      await options.metrics.prune(options.retentionDays)
      await announce({ at: round.sampled_at, summary, error: null })
      return { outcome: 'sampled', leader: true, summary, failure: null }
    } catch (error) {
      // A node that is down is routine; one that answers nonsense needs a look.
      if (isRpcError(error, 'bad-reply')) options.log.warn({ err: error }, 'metrics sample skipped: malformed node answer')
      else options.log.debug({ err: error }, 'metrics sample failed')
      return { outcome: 'failed', leader: true, summary, failure: { step: summary ? 'database' : 'node', error } }
    }
  }

  async function sampleOnce(): Promise<SampleOutcome> {
    let round: SampleRound
    try {
      round = await sampleRound()
    } catch (error) {
      // The settings or the lease could not be read: the database failed before the node was asked.
      options.onRound?.({ outcome: 'failed', leader: false, summary: null, failure: { step: 'database', error } })
      throw error
    }
    options.onRound?.(round)
    return round.outcome
  }

  function schedule() {
    timer = setTimeout(() => {
      running = sampleOnce()
        .catch((error) => options.log.warn({ err: error }, 'metrics sampler error'))
        .finally(() => {
          if (timer) schedule()
        })
    }, options.intervalSeconds * 1000)
    timer.unref()
  }

  return {
    holder,
    sampleOnce,
    /** The last round this instance sampled (null before its first, and on an instance that is not the leader). */
    latest: (): SampledRound | null => latest,
    /** Adds a listener to every round this instance samples (only the lease holder samples). */
    onRound(listener: RoundListener): void {
      listeners.push(listener)
    },
    start() {
      if (!timer) schedule()
    },
    async stop() {
      const t = timer
      timer = null
      if (t) clearTimeout(t)
      await running
      await options.leases.release(LEASE, holder).catch(() => {})
    },
  }
}

export type Sampler = ReturnType<typeof createSampler>

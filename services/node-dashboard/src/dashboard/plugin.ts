import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { createSampler, type Sampler } from './sampler.ts'
import { type Summary, sharedSummary } from './summary.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The dashboard summary; concurrent callers share one round of RPC calls. */
    nodeSummary: () => Promise<Summary>
    sampler: Sampler
  }
}

/** Decorates the shared summary and starts the metrics sampler (stopped on close). */
export const dashboardPlugin = fp(
  async function dashboardPlugin(fastify: FastifyInstance, { config }: { config: Config }) {
    const summary = sharedSummary(fastify.rpc, () => fastify.settingsCache.get())
    fastify.decorate('nodeSummary', summary)
    const sampler = createSampler({
      leases: fastify.leases,
      metrics: fastify.metrics,
      settings: () => fastify.settingsCache.get(),
      summary,
      intervalSeconds: config.METRICS_SAMPLE_SECONDS,
      retentionDays: config.HISTORY_RETENTION_DAYS,
      log: fastify.log,
      onRound: (round) => fastify.prometheus.recordSampleRound(round),
    })
    fastify.decorate('sampler', sampler)
    fastify.addHook('onReady', async () => sampler.start())
    fastify.addHook('onClose', async () => sampler.stop())
  },
  { name: 'dashboard-summary', dependencies: ['dashboard-rpc', 'dashboard-history', 'dashboard-leases', 'dashboard-prometheus'] },
)

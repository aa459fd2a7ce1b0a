import { repositoryPlugin } from '@app/common'
import { createMetricsRepository, type MetricsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: MetricsRepository
  }
}

/** Decorates `fastify.metrics`, the sampled node metrics and their roll-ups (see repository.ts). */
export const historyPlugin = repositoryPlugin('dashboard-history', 'metrics', createMetricsRepository)

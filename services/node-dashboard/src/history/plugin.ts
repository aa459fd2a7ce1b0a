import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createMetricsRepository, type MetricsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: MetricsRepository
  }
}

/** Decorates `fastify.metrics`, the sampled node metrics and their roll-ups (see repository.ts). */
export const historyPlugin = fp(
  async function historyPlugin(fastify: FastifyInstance) {
    fastify.decorate('metrics', createMetricsRepository(fastify.db))
  },
  { name: 'dashboard-history', dependencies: ['app-database'] },
)

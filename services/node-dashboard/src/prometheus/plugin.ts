import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createDashboardMetrics, type DashboardMetrics } from './registry.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** This instance's Prometheus metrics (see registry.ts); GET /metrics renders them. */
    prometheus: DashboardMetrics
  }
}

/** Decorates `fastify.prometheus`, a registry of this app instance's own. Register before the RPC client. */
export const prometheusPlugin = fp(
  async function prometheusPlugin(fastify: FastifyInstance) {
    fastify.decorate('prometheus', createDashboardMetrics())
  },
  { name: 'dashboard-prometheus' },
)

import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createLeaseRepository, type LeaseRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    leases: LeaseRepository
  }
}

/** Decorates `fastify.leases`, the named leases instances take turns with (see repository.ts). */
export const leasesPlugin = fp(
  async function leasesPlugin(fastify: FastifyInstance) {
    fastify.decorate('leases', createLeaseRepository(fastify.db))
  },
  { name: 'dashboard-leases', dependencies: ['app-database'] },
)

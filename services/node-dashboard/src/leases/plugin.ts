import { repositoryPlugin } from '@app/common'
import { createLeaseRepository, type LeaseRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    leases: LeaseRepository
  }
}

/** Decorates `fastify.leases`, the named leases instances take turns with (see repository.ts). */
export const leasesPlugin = repositoryPlugin('dashboard-leases', 'leases', createLeaseRepository)

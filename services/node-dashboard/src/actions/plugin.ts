import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type ActionsRepository, createActionsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    nodeActions: ActionsRepository
  }
}

/** Decorates `fastify.nodeActions`, the node action records and their single lock (see repository.ts). */
export const actionsPlugin = fp(
  async function actionsPlugin(fastify: FastifyInstance) {
    fastify.decorate('nodeActions', createActionsRepository(fastify.db))
  },
  { name: 'dashboard-actions', dependencies: ['app-database'] },
)

import { repositoryPlugin } from '@app/common'
import { type ActionsRepository, createActionsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    nodeActions: ActionsRepository
  }
}

/** Decorates `fastify.nodeActions`, the node action records and their single lock (see repository.ts). */
export const actionsPlugin = repositoryPlugin('dashboard-actions', 'nodeActions', createActionsRepository)

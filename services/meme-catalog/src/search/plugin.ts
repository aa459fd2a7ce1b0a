import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createSearchSync, type SearchSync } from './service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    searchSync: SearchSync
  }
}

/**
 * Decorates `fastify.searchSync`: the in-memory read model, built from the database in the
 * background (health answers meanwhile) and kept current through LISTEN/NOTIFY.
 */
export const searchSyncPlugin = fp(
  async function searchSyncPlugin(fastify: FastifyInstance) {
    const sync = await createSearchSync(fastify.db, fastify.log)
    fastify.decorate('searchSync', sync)
    fastify.addHook('onClose', () => sync.close())
  },
  { name: 'meme-search-sync', dependencies: ['app-database'] },
)

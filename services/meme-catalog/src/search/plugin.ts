import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createReadModelReplica, type ReadModelReplica } from './replica.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The public read model: serves reads and searches, refreshed after every change of a meme. */
    readModel: ReadModelReplica
  }
}

/**
 * Decorates `fastify.readModel`: built from the database in the background (health answers
 * meanwhile) and kept current across instances through LISTEN/NOTIFY.
 */
export const readModelPlugin = fp(
  async function readModelPlugin(fastify: FastifyInstance) {
    const replica = await createReadModelReplica(fastify.db, fastify.log)
    fastify.decorate('readModel', replica)
    fastify.addHook('onClose', () => replica.close())
  },
  { name: 'meme-read-model', dependencies: ['app-database'] },
)

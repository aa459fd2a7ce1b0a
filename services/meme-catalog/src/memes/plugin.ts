import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createMemesRepository, type MemesRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The public read side's SQL (on the shared database; pass a transaction to the factory instead when needed). */
    memes: MemesRepository
  }
}

export const memesRepositoryPlugin = fp(
  async function memesRepositoryPlugin(fastify: FastifyInstance) {
    fastify.decorate('memes', createMemesRepository(fastify.db))
  },
  { name: 'meme-repository', dependencies: ['app-database'] },
)

import { repositoryPlugin } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createMemesRepository, type MemesRepository } from './repository.ts'
import { createMemeUseCases, type MemeUseCases } from './use-cases.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The public read side's SQL (on the shared database; pass a transaction to the factory instead when needed). */
    memes: MemesRepository
    /** The write side: every change of a meme goes through these. */
    memeUseCases: MemeUseCases
  }
}

export const memesRepositoryPlugin = repositoryPlugin('meme-repository', 'memes', createMemesRepository)

export const memeUseCasesPlugin = fp(
  async function memeUseCasesPlugin(fastify: FastifyInstance) {
    fastify.decorate('memeUseCases', createMemeUseCases(fastify.db, fastify.readModel, fastify.log))
  },
  { name: 'meme-use-cases', dependencies: ['app-database', 'meme-read-model'] },
)

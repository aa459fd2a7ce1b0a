import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createUploadsRepository, type UploadsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** SQL of the upload pipeline on the app's database (scoped to the upload routes). */
    uploadsRepository: UploadsRepository
  }
}

export const uploadsRepositoryPlugin = fp(
  async function uploadsRepositoryPlugin(fastify: FastifyInstance) {
    fastify.decorate('uploadsRepository', createUploadsRepository(fastify.db))
  },
  { name: 'meme-uploads-repository', dependencies: ['app-database'] },
)

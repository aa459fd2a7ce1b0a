import { repositoryPlugin } from '@app/common'
import { createUploadsRepository, type UploadsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** SQL of the upload pipeline on the app's database (scoped to the upload routes). */
    uploadsRepository: UploadsRepository
  }
}

export const uploadsRepositoryPlugin = repositoryPlugin('meme-uploads-repository', 'uploadsRepository', createUploadsRepository)

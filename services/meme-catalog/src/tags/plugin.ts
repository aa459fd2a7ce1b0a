import { repositoryPlugin } from '@app/common'
import { createTagsRepository, type TagsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The tag catalog's SQL (reads; changes go through the meme use cases). */
    tags: TagsRepository
  }
}

export const tagsRepositoryPlugin = repositoryPlugin('meme-tags-repository', 'tags', createTagsRepository)

import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createTagsRepository, type TagsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The tag catalog's SQL (reads; changes go through the meme use cases). */
    tags: TagsRepository
  }
}

export const tagsRepositoryPlugin = fp(
  async function tagsRepositoryPlugin(fastify: FastifyInstance) {
    fastify.decorate('tags', createTagsRepository(fastify.db))
  },
  { name: 'meme-tags-repository', dependencies: ['app-database'] },
)

import { repositoryPlugin } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createTagsRepository, type TagsRepository } from './repository.ts'
import { createTagUseCases, type TagUseCases } from './use-cases.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The tag catalog's SQL (reads; changes go through the meme and tag use cases). */
    tags: TagsRepository
    /** Changes of tag aliases. */
    tagUseCases: TagUseCases
  }
}

export const tagsRepositoryPlugin = repositoryPlugin('meme-tags-repository', 'tags', createTagsRepository)

export const tagUseCasesPlugin = fp(
  async function tagUseCasesPlugin(fastify: FastifyInstance) {
    fastify.decorate('tagUseCases', createTagUseCases(fastify.db, fastify.readModel))
  },
  { name: 'meme-tag-use-cases', dependencies: ['app-database', 'meme-read-model'] },
)

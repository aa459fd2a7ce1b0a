import { noStore, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import fp from 'fastify-plugin'
import { MAX_TAG_LENGTH, RateLimit, ref, tooManyRequestsResponse, withRateLimitHeaders } from '../memes/schemas.ts'
import { createTagsRepository, type TagsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The tag catalog's SQL (list/create/delete; the admin API writes through it). */
    tags: TagsRepository
  }
}

export const tagsRepositoryPlugin = fp(
  async function tagsRepositoryPlugin(fastify) {
    fastify.decorate('tags', createTagsRepository(fastify.db))
  },
  { name: 'meme-tags-repository', dependencies: ['app-database'] },
)

export const tagsRoutes: FastifyPluginAsyncTypebox<{ readLimit: RouteRateLimit }> = async (fastify, { readLimit }) => {
  fastify.get(
    '/api/tags',
    {
      config: { rateLimit: readLimit },
      schema: {
        summary: 'List tag names',
        description: 'The public, admin-managed tag catalog, sorted by name. Uses the API read limit.',
        tags: ['tags'],
        response: {
          200: withRateLimitHeaders(
            Type.Object({ tags: Type.Array(Type.String({ maxLength: MAX_TAG_LENGTH })), rateLimit: ref(RateLimit) }),
            'The tag catalog.',
          ),
          429: tooManyRequestsResponse,
        },
      },
    },
    async (request, reply) => {
      noStore(reply)
      return { tags: await fastify.tags.list(), rateLimit: request.rateLimit! }
    },
  )
}

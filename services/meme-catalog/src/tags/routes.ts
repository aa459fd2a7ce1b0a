import { noStore, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { MAX_TAG_LENGTH } from '../memes/schemas.ts'
import { noStoreResponse, RateLimit, ref, tooManyRequestsResponse } from '../schemas.ts'

export const tagsRoutes: FastifyPluginAsyncTypebox<{ readLimit: RouteRateLimit }> = async (fastify, { readLimit }) => {
  fastify.get(
    '/api/tags',
    {
      config: { rateLimit: readLimit },
      schema: {
        operationId: 'listTags',
        summary: 'List tag names',
        description: 'The public, admin-managed tag catalog, sorted by name. Uses the API read limit.',
        tags: ['tags'],
        response: {
          200: noStoreResponse(
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

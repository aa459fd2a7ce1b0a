import { HttpError, noStore, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponse, noStoreResponse, ref, tooManyRequestsResponse, unavailableResponse } from '../schemas.ts'
import { MAX_COMPLETIONS } from '../search/complete.ts'
import { MAX_QUERY_LENGTH, MemeSuggestResponse } from './schemas.ts'

/** How long a completion waits for the first index build before answering 503 (as search does). */
const READY_WAIT_MS = 5000

export const SuggestQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: MAX_QUERY_LENGTH,
    description: 'The search text being typed; its last word is completed (nothing when it ends with a space).',
  }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_COMPLETIONS, default: MAX_COMPLETIONS })),
})

export const suggestRoutes: FastifyPluginAsyncTypebox<{ readLimit: RouteRateLimit }> = async (fastify, { readLimit }) => {
  fastify.get(
    '/api/memes/suggest',
    {
      config: { rateLimit: readLimit },
      schema: {
        operationId: 'suggestMemeSearch',
        summary: 'Complete the word being typed in a search',
        description:
          'Words of captions and tags, and catalog tag names, that the last word of q matches as the last word of a ' +
          'search does (starting with it, or with a typo: 1 for 5-8 letters, 2 for 9 or more; from one letter on), ' +
          'with the number of approved memes each finds, most first. At most 10.',
        tags: ['memes'],
        querystring: SuggestQuery,
        response: {
          200: noStoreResponse(ref(MemeSuggestResponse), 'The completions and the caller’s read budget.'),
          400: errorResponse('A missing, empty or too long q, or a limit out of range.'),
          429: tooManyRequestsResponse,
          503: unavailableResponse('Right after start-up while the search index loads: retry after Retry-After seconds.'),
        },
      },
    },
    async (request, reply) => {
      let model = fastify.readModel.current
      if (!model) {
        const ready = await fastify.readModel.whenReady(READY_WAIT_MS)
        model = fastify.readModel.current
        if (!ready || !model) throw new HttpError(503, 'The search index is still loading; retry shortly.', { 'Retry-After': 2 })
      }
      const suggestions = model.complete(request.query.q, request.query.limit ?? MAX_COMPLETIONS)
      noStore(reply)
      return { suggestions, rateLimit: request.rateLimit! }
    },
  )
}

import { noStore, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponse, noStoreResponse, ref, tooManyRequestsResponse, unavailableResponse } from '../schemas.ts'
import { normalizeTags } from './routes.ts'
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_TAG_FILTERS, MAX_TAG_LENGTH, MemeTrendingResponse } from './schemas.ts'

export const TrendingQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 1, default: 1, description: 'Page number; a page past the last is clamped to the last.' }),
  ),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
  tag: Type.Optional(
    Type.Array(Type.String({ maxLength: MAX_TAG_LENGTH }), {
      maxItems: MAX_TAG_FILTERS,
      description: 'Exact tag names or aliases (repeat the parameter); all must match.',
    }),
  ),
})

/** GET /api/memes/trending: the trending order, kept by the counter flush (never computed per request). */
export const trendingRoutes: FastifyPluginAsyncTypebox<{ readLimit: RouteRateLimit }> = async (fastify, { readLimit }) => {
  fastify.get(
    '/api/memes/trending',
    {
      config: { rateLimit: readLimit },
      schema: {
        operationId: 'listTrendingMemes',
        summary: 'List approved memes by trending order',
        description:
          'Most trending first: views and downloads (a download counts 2), each halving in weight every 2 days, ' +
          'summed; then newest first (memes never viewed come last, newest first). Counts reach the order with the ' +
          'counter flush. Tag filters are exact and all must match. With no match: total 0, totalPages 0, page 1.',
        tags: ['memes'],
        querystring: TrendingQuery,
        response: {
          200: noStoreResponse(ref(MemeTrendingResponse), 'One page of memes.'),
          400: errorResponse('An invalid parameter (named in the message).'),
          429: tooManyRequestsResponse,
          503: unavailableResponse(
            'While the database is unreachable and the read model is not loaded yet: retry after Retry-After seconds.',
          ),
        },
      },
    },
    async (request, reply) => {
      const page = request.query.page ?? 1
      const pageSize = request.query.pageSize ?? DEFAULT_PAGE_SIZE
      const tags = normalizeTags(request.query.tag)
      const model = fastify.readModel.current
      const result = model
        ? model.list({ tags, page, pageSize, order: 'trending' })
        : await listFromDatabase(tags, page, pageSize)
      noStore(reply)
      const body =
        `{"page":${result.page},"pageSize":${result.pageSize},"total":${result.total},"totalPages":${result.totalPages},` +
        `"memes":${result.memesJson},"rateLimit":${JSON.stringify(request.rateLimit)}}`
      return reply.type('application/json; charset=utf-8').send(body as never)
    },
  )

  // Before the first read-model build: the same page from the database, through the memes_public_trending index.
  async function listFromDatabase(filters: string[], page: number, pageSize: number) {
    const named = filters.length > 0 ? await fastify.tags.resolve(filters) : new Map<string, string>()
    const tags = [...new Set(filters.map((tag) => named.get(tag) ?? tag))]
    const list = (served: number) =>
      fastify.memes.listPublic({ tags, offset: (served - 1) * pageSize, limit: pageSize, order: 'trending' })
    let served = page
    let found = await list(page)
    const totalPages = Math.ceil(found.total / pageSize)
    if (totalPages === 0) served = 1
    else if (page > totalPages) {
      served = totalPages
      found = await list(served)
    }
    return { page: served, pageSize, total: found.total, totalPages, memesJson: JSON.stringify(found.memes) }
  }
}

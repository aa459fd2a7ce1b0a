import { badRequest, noStore, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static } from '@sinclair/typebox'
import { NEAR_DUPLICATE_DISTANCE } from '../images/phash.ts'
import { described, errorResponse } from '../schemas.ts'
import { type AdminMeme, commonAdminResponses, ReviewPage, ReviewQuery, type SuggestedTag } from './schemas.ts'
import { type CatalogName, tagsMatchingText } from './tag-matches.ts'

const MAX_NEAR_DUPLICATES = 5

/** What an admin needs to decide on one pending upload, beside the record itself. */
export function suggestionsFor(
  meme: Static<typeof AdminMeme>,
  modelTags: string[],
  catalog: CatalogName[],
): Static<typeof SuggestedTag>[] {
  const carried = new Set(meme.tags)
  const suggestions: Static<typeof SuggestedTag>[] = modelTags
    .filter((tag) => !carried.has(tag))
    .map((tag) => ({ tag, source: 'model' as const, matchedText: null }))
  const taken = new Set([...carried, ...modelTags])
  const source = meme.captionSource === 'ocr' ? ('ocr' as const) : ('caption' as const)
  for (const { tag, matchedText } of tagsMatchingText(meme.caption, catalog, taken)) {
    suggestions.push({ tag, source, matchedText })
  }
  return suggestions
}

/** The review queue: pending memes oldest first with near-duplicates and tag suggestions. */
export const adminReviewRoutes: FastifyPluginAsyncTypebox<{ rateLimit: RouteRateLimit }> = async (fastify, { rateLimit }) => {
  const admin = fastify.adminRepository

  fastify.addHook('onSend', async (_request, reply) => {
    noStore(reply)
  })

  fastify.get(
    '/api/admin/review',
    {
      config: { rateLimit },
      schema: {
        operationId: 'adminReviewQueue',
        summary: 'Pending memes to review, with near-duplicates and suggested tags',
        description:
          'Pending memes oldest first, `limit` at a time; `cursor` is the `nextCursor` of the previous page (a meme that ' +
          'left the queue meanwhile still marks the place). Suggestions are catalog tags the meme does not carry: ' +
          'proposed by the vision captioner, or whose name or alias appears in the caption by the search rules.',
        tags: ['admin'],
        querystring: ReviewQuery,
        response: {
          200: described(ReviewPage, 'One page of the review queue.'),
          400: errorResponse('Invalid query parameter, or a cursor naming no meme.'),
          ...commonAdminResponses,
        },
      },
    },
    async (request) => {
      const { cursor, limit } = request.query
      // One more than asked says whether another page follows.
      const page = await admin.pendingAfter(cursor, limit + 1)
      if (!page) throw badRequest("Invalid query parameter 'cursor': no such meme.")
      const memes = page.memes.slice(0, limit)
      const [modelTags, catalog] = await Promise.all([admin.modelSuggestions(memes.map((m) => m.id)), admin.catalogNames()])
      const model = fastify.readModel.current
      const items = memes.map((meme) => ({
        meme,
        nearDuplicates:
          model && meme.phash
            ? model
                .similar(meme.phash, NEAR_DUPLICATE_DISTANCE, MAX_NEAR_DUPLICATES + 1)
                .filter((match) => match.meme.id !== meme.id)
                .slice(0, MAX_NEAR_DUPLICATES)
                .map(({ distance, meme: other }) => ({ id: other.id, url: other.url, distance }))
            : [],
        suggestedTags: suggestionsFor(meme, modelTags.get(meme.id) ?? [], catalog),
      }))
      const last = memes.at(-1)
      return { total: page.total, items, nextCursor: page.memes.length > limit && last ? last.id : null }
    },
  )
}

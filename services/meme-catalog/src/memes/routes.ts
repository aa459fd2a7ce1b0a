import { badRequest, HttpError, noStore, notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { errorResponse, noStoreResponse, RateLimit, ref, tooManyRequestsResponse, unavailableResponse } from '../schemas.ts'
import { overlapping, textMatches } from '../search/highlight.ts'
import { parseQuery } from '../search/normalize.ts'
import { EmptyQueryError } from '../search/types.ts'
import { foldTagName } from '../tags/repository.ts'
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_QUERY_LENGTH,
  MAX_TAG_FILTERS,
  MAX_TAG_LENGTH,
  Meme,
  MemeIdParams,
  MemeListResponse,
  MemeMatch,
  type MemeT,
} from './schemas.ts'

export interface MemesRoutesOptions {
  readLimit: RouteRateLimit
}

/** How long a search waits for the first index build before answering 503 (never a wrong result). */
const SEARCH_READY_WAIT_MS = 5000

export const ListQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 1, default: 1, description: 'Page number; a page past the last is clamped to the last.' }),
  ),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
  q: Type.Optional(
    Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description:
        'Caption and topic search: case- and accent-insensitive words, prefixes and small typos; every word must match.',
    }),
  ),
  tag: Type.Optional(
    Type.Array(Type.String({ maxLength: MAX_TAG_LENGTH }), {
      maxItems: MAX_TAG_FILTERS,
      description: 'Exact tag names (repeat the parameter); all must match. Lowercased.',
    }),
  ),
  highlight: Type.Optional(
    Type.Boolean({
      description:
        'true adds highlights: per meme, the caption words and tags that matched q or a tag filter, as character ranges.',
    }),
  ),
})

const MemeQuery = Type.Object({
  highlight: Type.Optional(
    Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description:
        'A search query (as q of the list): adds highlight, what of this meme matches it, with the OCR boxes of ' +
        'the matched caption words. Empty or blank: as if absent.',
    }),
  ),
})

/** Tag filters spelled as catalog names, deduplicated; an empty name is an invalid filter. */
export function normalizeTags(tags: string[] | undefined): string[] {
  const out = new Set<string>()
  for (const raw of tags ?? []) {
    const tag = foldTagName(raw)
    if (tag === '') throw badRequest("Invalid query parameter 'tag': must not be empty")
    out.add(tag)
  }
  return [...out]
}

function rateLimitOf(request: FastifyRequest) {
  return request.rateLimit!
}

export const memesRoutes: FastifyPluginAsyncTypebox<MemesRoutesOptions> = async (fastify, { readLimit }) => {
  fastify.get(
    '/api/memes',
    {
      config: { rateLimit: readLimit },
      schema: {
        operationId: 'listMemes',
        summary: 'List or search approved memes',
        description:
          'Newest first; with q, by relevance then newest. Tag filters are exact and all must match. ' +
          'With no match: total 0, totalPages 0, page 1 and an empty memes array.',
        tags: ['memes'],
        querystring: ListQuery,
        response: {
          200: noStoreResponse(ref(MemeListResponse), 'One page of memes.'),
          400: errorResponse('An invalid parameter (named in the message) or a query without a searchable word.'),
          429: tooManyRequestsResponse,
          503: unavailableResponse(
            'Right after start-up while the search index loads, or while the database is unreachable: retry after Retry-After seconds.',
          ),
        },
      },
    },
    async (request, reply) => {
      // Defaults are applied by validation; the fallbacks only satisfy the optional types.
      const page = request.query.page ?? 1
      const pageSize = request.query.pageSize ?? DEFAULT_PAGE_SIZE
      const q = request.query.q?.trim() || undefined
      const tags = normalizeTags(request.query.tag)
      const highlight = request.query.highlight === true
      let result: { page: number; pageSize: number; total: number; totalPages: number; memesJson: string }
      let highlights = ''
      // Highlights are computed from the read model's records: wait for it as a search does.
      const model = fastify.readModel.current ?? (q || highlight ? await waitForModel() : null)
      if (model) {
        try {
          const listed = model.list({ q, tags, page, pageSize })
          result = listed
          if (highlight) highlights = `"highlights":${JSON.stringify(model.highlights(q, tags, listed.ids))},`
        } catch (error) {
          if (error instanceof EmptyQueryError) throw badRequest("Invalid query parameter 'q': it has no searchable word")
          throw error
        }
      } else {
        result = await listFromDatabase(tags, page, pageSize)
      }
      noStore(reply)
      // The page is assembled from cached per-meme JSON: no per-request serialization of the memes.
      const body =
        `{"page":${result.page},"pageSize":${result.pageSize},"total":${result.total},"totalPages":${result.totalPages},` +
        `"memes":${result.memesJson},${highlights}"rateLimit":${JSON.stringify(rateLimitOf(request))}}`
      return reply.type('application/json; charset=utf-8').send(body as never)
    },
  )

  async function waitForModel() {
    const ready = await fastify.readModel.whenReady(SEARCH_READY_WAIT_MS)
    const model = fastify.readModel.current
    if (ready && model) return model
    throw new HttpError(503, 'The search index is still loading; retry shortly.', { 'Retry-After': 2 })
  }

  // Before the first index build finished: the same page, straight from the database (no q here).
  async function listFromDatabase(filters: string[], page: number, pageSize: number) {
    // A filter naming an alias selects its tag, as in the read model.
    const named = filters.length > 0 ? await fastify.tags.resolve(filters) : new Map<string, string>()
    const tags = [...new Set(filters.map((tag) => named.get(tag) ?? tag))]
    let served = page
    let found = await fastify.memes.listPublic({ tags, offset: (page - 1) * pageSize, limit: pageSize })
    const totalPages = Math.ceil(found.total / pageSize)
    if (totalPages === 0) served = 1
    else if (page > totalPages) {
      served = totalPages
      found = await fastify.memes.listPublic({ tags, offset: (served - 1) * pageSize, limit: pageSize })
    }
    const memesJson = JSON.stringify(found.memes)
    return { page: served, pageSize, total: found.total, totalPages, memesJson }
  }

  fastify.get(
    '/api/memes/:id',
    {
      config: { rateLimit: readLimit },
      // An id that does not match the pattern is simply not a meme: 404, not 400.
      attachValidation: true,
      schema: {
        operationId: 'getMeme',
        summary: 'Get one approved meme',
        tags: ['memes'],
        description:
          'With highlight (a search query), the body also has highlight: the caption words and tags that match it ' +
          'and the OCR boxes of the matched caption words on the image.',
        params: MemeIdParams,
        querystring: MemeQuery,
        response: {
          200: noStoreResponse(
            Type.Object({ meme: ref(Meme), highlight: Type.Optional(ref(MemeMatch)), rateLimit: ref(RateLimit) }),
            'The meme and the caller’s read budget.',
          ),
          400: errorResponse("An invalid 'highlight': over 200 characters or without a searchable word."),
          404: errorResponse('No approved meme has this id (pending, rejected, deleted, unknown or malformed).'),
          429: tooManyRequestsResponse,
        },
      },
    },
    async (request, reply) => {
      if (request.validationError) {
        if (request.validationError.validationContext === 'querystring') throw request.validationError
        throw notFound('Meme not found.')
      }
      const query = request.query.highlight?.trim() || undefined
      const words = query === undefined ? [] : parseQuery(query)
      if (query !== undefined && words.length === 0) {
        throw badRequest("Invalid query parameter 'highlight': it has no searchable word")
      }
      const meme = await findPublicMeme(request.params.id)
      if (!meme) throw notFound('Meme not found.')
      noStore(reply)
      if (query === undefined) return { meme, rateLimit: rateLimitOf(request) }
      const matched = textMatches(meme.caption, meme.tags, words)
      const stored = await fastify.captionWords.forCaption(meme.id, meme.caption)
      const boxes = stored === null ? null : overlapping(stored, matched.caption)
      return { meme, highlight: { ...matched, boxes }, rateLimit: rateLimitOf(request) }
    },
  )

  async function findPublicMeme(id: string): Promise<MemeT | null> {
    const model = fastify.readModel.current
    if (model) return model.get(id) ?? null
    return fastify.memes.findPublic(id)
  }
}

import { randomBytes, randomInt } from 'node:crypto'
import { badRequest, HttpError, noStore, notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PublicMemeRecord } from '../memes/repository.ts'
import { type Rating, ratingFilter } from '../search/rating.ts'
import type { ReadModel } from '../search/read-model.ts'
import { EmptyQueryError } from '../search/types.ts'
import { SemaphoreFullError } from '../uploads/semaphore.ts'
import { toGiphyGif } from './mapper.ts'
import {
  DEFAULT_LIMIT,
  DEFAULT_SUGGESTIONS,
  errorResponses,
  GifIdParams,
  GifIdQuery,
  GiphyGifList,
  GiphyOneGif,
  GiphyRandom,
  GiphyTermList,
  IdsQuery,
  MAX_IDS,
  MAX_OFFSET,
  MAX_TERM_LENGTH,
  notFoundResponse,
  okResponse,
  RandomQuery,
  SearchQuery,
  TagsQuery,
  TrendingQuery,
  termTooLongResponse,
} from './schemas.ts'

/** How long a read waits for the first index build before answering 503. */
const READY_WAIT_MS = 5000
const MEME_ID = /^[a-f0-9]{64}$/
// A host as a client may send it (name or address, optional port): anything else is not echoed into URLs.
const PLAIN_HOST = /^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/

/** A new id for meta.response_id (GIPHY's are 40 hex characters). */
export const responseId = () => randomBytes(20).toString('hex')

/** The origin the caller reached, for absolute image URLs (behind a trusted proxy, the one it names). */
function baseUrl(request: FastifyRequest): string {
  const host = request.host
  return PLAIN_HOST.test(host) ? `${request.protocol}://${host}` : ''
}

/** Index filter keys for GIPHY's rating parameter (that rating and below; y is taken as g, r filters nothing). */
function ratingTags(rating: Rating | 'y' | undefined): string[] {
  if (rating === undefined || rating === 'r') return []
  return [ratingFilter(rating === 'y' ? 'g' : rating)]
}

const ok = (status = 200) => ({ status, msg: 'OK', response_id: responseId() })

export const giphyRoutes: FastifyPluginAsyncTypebox<{ readLimit: RouteRateLimit }> = async (fastify, { readLimit }) => {
  async function model(): Promise<ReadModel> {
    const current = fastify.readModel.current
    if (current) return current
    if ((await fastify.readModel.whenReady(READY_WAIT_MS)) && fastify.readModel.current) return fastify.readModel.current
    throw new HttpError(503, 'The search index is still loading; retry shortly.', { 'Retry-After': 2 })
  }

  /** GIF objects of these records, with their renditions' sizes (made for memes never rendered). */
  async function gifs(request: FastifyRequest, records: readonly Readonly<PublicMemeRecord>[]) {
    let info: Awaited<ReturnType<typeof fastify.renditions.infoOf>>
    try {
      info = await fastify.renditions.infoOf(records.map((r) => r.id))
    } catch (error) {
      if (error instanceof SemaphoreFullError)
        throw new HttpError(503, 'Busy making renditions; retry shortly.', { 'Retry-After': 2 })
      throw error
    }
    const base = baseUrl(request)
    return records.map((record) => toGiphyGif(record, base, info.get(record.id) ?? null))
  }

  function send(reply: FastifyReply, body: unknown) {
    noStore(reply)
    return body
  }

  const common = { config: { rateLimit: readLimit } }

  fastify.get(
    '/gifs/search',
    {
      ...common,
      schema: {
        operationId: 'giphySearch',
        summary: 'Search memes (GIPHY search)',
        description:
          'Approved memes whose caption or tags match every word of q, by relevance then newest; GIPHY’s envelope. ' +
          'A q without any letter or digit matches nothing.',
        tags: ['gifs'],
        querystring: SearchQuery,
        response: {
          200: okResponse(GiphyGifList, 'A page of matching memes.'),
          414: termTooLongResponse,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { limit = DEFAULT_LIMIT, offset = 0, rating } = request.query
      const q = request.query.q.trim()
      if (q === '') throw badRequest("Invalid query parameter 'q': must not be empty")
      if ([...q].length > MAX_TERM_LENGTH)
        throw new HttpError(414, `The search term is longer than ${MAX_TERM_LENGTH} characters.`)
      const index = await model()
      let found: ReturnType<ReadModel['find']>
      try {
        found = index.find({ q, tags: ratingTags(rating), offset, limit })
      } catch (error) {
        if (!(error instanceof EmptyQueryError)) throw error
        found = { total: 0, records: [] }
      }
      const data = await gifs(request, found.records)
      return send(reply, { data, pagination: { total_count: found.total, count: data.length, offset }, meta: ok() })
    },
  )

  fastify.get(
    '/gifs/trending',
    {
      ...common,
      schema: {
        operationId: 'giphyTrending',
        summary: 'Trending memes (GIPHY trending)',
        description:
          'Approved memes in the catalog’s trending order (views and downloads, halving every 2 days), then newest first.',
        tags: ['gifs'],
        querystring: TrendingQuery,
        response: { 200: okResponse(GiphyGifList, 'A page of memes, most trending first.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { limit = DEFAULT_LIMIT, offset = 0, rating } = request.query
      const found = (await model()).find({ tags: ratingTags(rating), order: 'trending', offset, limit })
      const data = await gifs(request, found.records)
      return send(reply, { data, pagination: { total_count: found.total, count: data.length, offset }, meta: ok() })
    },
  )

  fastify.get(
    '/gifs/random',
    {
      ...common,
      schema: {
        operationId: 'giphyRandom',
        summary: 'One random meme (GIPHY random)',
        description:
          `Drawn uniformly from the matching memes (from the newest ${MAX_OFFSET + 1} when more match, so the work is ` +
          'bounded). tag is matched like a search word against captions and tags. data is [] when nothing matches.',
        tags: ['gifs'],
        querystring: RandomQuery,
        response: { 200: okResponse(GiphyRandom, 'One meme, or data [] when none matches.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const tags = ratingTags(request.query.rating)
      const q = request.query.tag?.trim() || undefined
      const index = await model()
      let record: Readonly<PublicMemeRecord> | undefined
      try {
        const { total } = index.find({ q, tags, offset: 0, limit: 0 })
        if (total > 0) record = index.find({ q, tags, offset: randomInt(Math.min(total, MAX_OFFSET + 1)), limit: 1 }).records[0]
      } catch (error) {
        if (!(error instanceof EmptyQueryError)) throw error
      }
      const data = record ? (await gifs(request, [record]))[0] : []
      return send(reply, { data, meta: ok() })
    },
  )

  fastify.get(
    '/gifs/search/tags',
    {
      ...common,
      schema: {
        operationId: 'giphySearchTags',
        summary: 'Term suggestions (GIPHY autocomplete)',
        description:
          'Caption words and catalog tags starting with q, used by the most approved memes first (ties by name). ' +
          'Bounded: at most 5,000 words and 5,000 tags are looked at.',
        tags: ['gifs'],
        querystring: TagsQuery,
        response: { 200: okResponse(GiphyTermList, 'Suggested terms.'), 414: termTooLongResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { limit = DEFAULT_SUGGESTIONS, offset = 0 } = request.query
      const q = request.query.q.trim()
      if (q === '') throw badRequest("Invalid query parameter 'q': must not be empty")
      if ([...q].length > MAX_TERM_LENGTH)
        throw new HttpError(414, `The search term is longer than ${MAX_TERM_LENGTH} characters.`)
      const all = (await model()).suggest(q, offset + limit)
      const data = all.slice(offset).map((s) => ({ name: s.term }))
      return send(reply, { data, pagination: { total_count: all.length, count: data.length, offset }, meta: ok() })
    },
  )

  fastify.get(
    '/gifs/:gif_id',
    {
      ...common,
      schema: {
        operationId: 'giphyGetGif',
        summary: 'One meme by id (GIPHY get GIF by id)',
        tags: ['gifs'],
        params: GifIdParams,
        querystring: GifIdQuery,
        response: {
          200: okResponse(GiphyOneGif, 'The meme.'),
          404: notFoundResponse,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const id = request.params.gif_id
      const record = MEME_ID.test(id) ? (await model()).record(id) : undefined
      if (!record) throw notFound('Not Found')
      const [data] = await gifs(request, [record])
      return send(reply, { data, meta: ok() })
    },
  )

  fastify.get(
    '/gifs',
    {
      ...common,
      schema: {
        operationId: 'giphyGetGifs',
        summary: 'Memes by ids (GIPHY get GIFs by ids)',
        description: `Up to ${MAX_IDS} comma-separated ids, in the order given; unknown, unapproved and malformed ids are left out.`,
        tags: ['gifs'],
        querystring: IdsQuery,
        response: { 200: okResponse(GiphyGifList, 'The memes found.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const ids = [...new Set(request.query.ids.split(',').map((id) => id.trim()))].filter((id) => id !== '')
      if (ids.length === 0) throw badRequest("Invalid query parameter 'ids': must name at least one id")
      if (ids.length > MAX_IDS) throw badRequest(`Invalid query parameter 'ids': at most ${MAX_IDS} ids`)
      const index = await model()
      const records = ids.flatMap((id) => {
        const record = MEME_ID.test(id) ? index.record(id) : undefined
        return record ? [record] : []
      })
      const data = await gifs(request, records)
      return send(reply, { data, pagination: { total_count: data.length, count: data.length, offset: 0 }, meta: ok() })
    },
  )
}

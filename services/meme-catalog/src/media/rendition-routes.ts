import { HttpError, notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import fp from 'fastify-plugin'
import { MEME_ID_PATTERN } from '../memes/schemas.ts'
import { errorResponse, rateLimitHeaders, tooManyRequestsResponse, unavailableResponse } from '../schemas.ts'
import { SemaphoreFullError } from '../uploads/semaphore.ts'
import { createRenditionStore, type RenditionStore } from './rendition-store.ts'
import { isRenditionName, RENDITION_NAMES } from './renditions.ts'
import { IMMUTABLE, matchesEtag } from './routes.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Resized renditions of public memes (made once, stored). */
    renditions: RenditionStore
  }
}

/** The entity tag of a rendition: its bytes never change under it (the meme id is the hash of the upload). */
export const renditionEtag = (id: string, name: string) => `"${id}-${name}"`

const renditionHeaders = {
  ...rateLimitHeaders,
  ETag: { type: 'string', description: 'Strong entity tag: the quoted meme id and rendition name.' },
  'Cache-Control': { type: 'string', description: 'public, max-age=31536000, immutable' },
}

const renditionRoutes: FastifyPluginAsyncTypebox<{ mediaLimit: RouteRateLimit }> = async (fastify, { mediaLimit }) => {
  const store = createRenditionStore({
    db: fastify.db,
    original: async (id) => fastify.mediaCache?.get(id) ?? fastify.memes.findPublicMedia(id),
    cache: fastify.mediaCache,
    log: fastify.log,
  })
  fastify.decorate('renditions', store)

  fastify.get(
    '/media/:id/:rendition',
    {
      config: { rateLimit: mediaLimit },
      // WebP is compressed already.
      compress: false,
      decompress: false,
      // A malformed id or an unknown rendition is no image: 404 like any other.
      attachValidation: true,
      schema: {
        operationId: 'getMediaRendition',
        summary: 'Fetch a resized rendition of the image',
        description:
          'A resized WebP of an approved meme: fixed_height and fixed_width are 200 px on that edge, their _small forms ' +
          '100 px, downsized fits 480 px and preview_webp 150 px. Made on first request and stored. Strong ETag, cached ' +
          'as immutable; If-None-Match answers 304. Uses the media rate limit; views are not counted.',
        tags: ['media'],
        params: Type.Object({
          id: Type.String({ pattern: MEME_ID_PATTERN, description: 'The meme id.' }),
          rendition: Type.Union(
            RENDITION_NAMES.map((name) => Type.Literal(name)),
            { description: 'The rendition name.' },
          ),
        }),
        response: {
          200: {
            'x-response-description': 'The WebP rendition.',
            content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } },
            headers: renditionHeaders,
          },
          304: { type: 'null', 'x-response-description': 'Not modified (If-None-Match matched).', headers: renditionHeaders },
          404: errorResponse('No approved meme has this id, or no such rendition.'),
          429: tooManyRequestsResponse,
          503: unavailableResponse('Too many renditions are being made right now; retry after Retry-After seconds.'),
        },
      },
    },
    async (request, reply) => {
      const { id, rendition } = request.params
      if (request.validationError || !isRenditionName(rendition)) throw notFound('Meme not found.')
      const model = fastify.readModel.current
      const isPublic = model ? model.has(id) : (await fastify.memes.findPublic(id)) !== null
      if (!isPublic) throw notFound('Meme not found.')
      const etag = renditionEtag(id, rendition)
      reply.header('ETag', etag).header('Cache-Control', IMMUTABLE)
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send()
      let bytes: Buffer | null
      try {
        bytes = await fastify.renditions.bytesOf(id, rendition)
      } catch (error) {
        if (error instanceof SemaphoreFullError)
          throw new HttpError(503, 'Busy making renditions; retry shortly.', { 'Retry-After': 2 })
        throw error
      }
      if (!bytes) throw notFound('Meme not found.')
      return reply.type('image/webp').send(bytes)
    },
  )
}

export const renditionRoutesPlugin = fp(renditionRoutes, {
  name: 'meme-media-renditions',
  dependencies: ['meme-media', 'meme-repository', 'meme-read-model'],
})

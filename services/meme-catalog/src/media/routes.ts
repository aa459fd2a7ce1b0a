import { notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import fp from 'fastify-plugin'
import { MemeIdParams } from '../memes/schemas.ts'
import { errorResponse, rateLimitHeaders, tooManyRequestsResponse } from '../schemas.ts'
import { createMediaCache, type MediaCache } from './cache.ts'
import { createMediaCounters, type MediaCounters } from './counters.ts'
import { RENDITION_NAMES } from './renditions.ts'

declare module 'fastify' {
  interface FastifyInstance {
    mediaCounters: MediaCounters
    /** Bytes of hot images (null: MEDIA_CACHE_MB=0). */
    mediaCache: MediaCache | null
  }
}

export interface MediaRoutesOptions {
  mediaLimit: RouteRateLimit
  counterFlushMs: number
  /** MiB of image bytes kept in memory; 0 reads every image from the database. */
  cacheMegabytes: number
}

// Media never changes under an id (the id is the hash of the upload): cache for a year.
export const IMMUTABLE = 'public, max-age=31536000, immutable'

/** Does If-None-Match name this entity tag (or *)? Weak comparison, as RFC 9110 asks for If-None-Match. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((raw) => {
    const tag = raw.trim()
    return tag === '*' || tag === etag || tag === `W/${etag}`
  })
}

/** A file name safe in a header: letters, digits, dash and underscore from the original name, then .webp. */
export function downloadName(originalName: string): string {
  const dot = originalName.lastIndexOf('.')
  const safe = (dot >= 0 ? originalName.slice(0, dot) : originalName).replace(/[^A-Za-z0-9_-]+/g, '-')
  // Dashes trimmed by index: /^-+|-+$/ retries every dash of an inner run, quadratic in its length.
  let start = 0
  let end = safe.length
  while (start < end && safe[start] === '-') start++
  while (end > start && safe[end - 1] === '-') end--
  return `${safe.slice(start, end).slice(0, 80) || 'meme'}.webp`
}

const mediaHeaders = {
  ...rateLimitHeaders,
  ETag: { type: 'string', description: 'Strong entity tag: the quoted meme id.' },
  'Cache-Control': { type: 'string', description: 'public, max-age=31536000, immutable' },
}

const media: FastifyPluginAsyncTypebox<MediaRoutesOptions> = async (fastify, { mediaLimit, counterFlushMs, cacheMegabytes }) => {
  const counters = createMediaCounters(
    async (deltas, at) => {
      const totals = await fastify.memes.addCounts(deltas, at)
      await fastify.readModel.countsChanged(totals)
    },
    counterFlushMs,
    fastify.log,
  )
  fastify.decorate('mediaCounters', counters)
  fastify.addHook('onClose', () => counters.close())

  const cache = createMediaCache(cacheMegabytes)
  fastify.decorate('mediaCache', cache)
  // The read model decides what may be served; the cache follows it so a removed meme's bytes leave memory.
  // Keys are the meme id, or `<id>/<rendition>` for its renditions: the first 64 characters are the meme.
  if (cache)
    fastify.readModel.onRemoved((id) => {
      if (id === undefined) cache.retain((kept) => fastify.readModel.current?.has(kept.slice(0, 64)) === true)
      else for (const key of [id, ...RENDITION_NAMES.map((name) => `${id}/${name}`)]) cache.delete(key)
    })

  /** The image bytes of a meme the read model (or the database) has just called public. */
  async function imageBytes(id: string): Promise<Buffer | null> {
    const cached = cache?.get(id)
    if (cached) return cached
    const stored = await fastify.memes.findPublicMedia(id)
    // Kept only if still public after the read: a removal during it has already run its eviction.
    if (stored && cache && fastify.readModel.current?.has(id)) cache.set(id, stored)
    return stored
  }

  fastify.get(
    '/media/:id',
    {
      config: { rateLimit: mediaLimit },
      // WebP is compressed already and a GET has no body: the compression plugin's hooks would run on every image
      // for nothing.
      compress: false,
      decompress: false,
      // A malformed id is no meme: 404 like any other.
      attachValidation: true,
      schema: {
        operationId: 'getMedia',
        summary: 'Fetch the normalized image',
        description:
          'The WebP image of an approved meme. Strong ETag (the id), cached as immutable; If-None-Match answers 304. ' +
          'download=1 adds Content-Disposition: attachment and counts a download instead of a view.',
        tags: ['media'],
        params: MemeIdParams,
        querystring: Type.Object({
          download: Type.Optional(Type.String({ description: '1 to download (Content-Disposition: attachment).' })),
        }),
        response: {
          200: {
            'x-response-description': 'The WebP image.',
            content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } },
            headers: {
              ...mediaHeaders,
              'Content-Disposition': { type: 'string', description: 'attachment; filename="…" (only with download=1)' },
            },
          },
          304: { type: 'null', 'x-response-description': 'Not modified (If-None-Match matched).', headers: mediaHeaders },
          404: errorResponse('No approved meme has this id.'),
          429: tooManyRequestsResponse,
        },
      },
    },
    async (request, reply) => {
      if (request.validationError) throw notFound('Meme not found.')
      const { id } = request.params
      const download = request.query.download === '1' || request.query.download === 'true'
      const model = fastify.readModel.current
      const meme = model ? model.get(id) : await fastify.memes.findPublic(id)
      if (!meme) throw notFound('Meme not found.')
      const etag = `"${id}"`
      reply.header('ETag', etag).header('Cache-Control', IMMUTABLE)
      const counted = request.method === 'GET'
      if (matchesEtag(request.headers['if-none-match'], etag)) {
        if (counted) counters.hit(id, download)
        return reply.code(304).send()
      }
      const bytes = await imageBytes(id)
      if (!bytes) throw notFound('Meme not found.')
      if (download) reply.header('Content-Disposition', `attachment; filename="${downloadName(meme.originalName)}"`)
      if (counted) counters.hit(id, download)
      return reply.type('image/webp').send(bytes)
    },
  )
}

/** Not encapsulated: `fastify.mediaCounters` is visible to the app (tests flush it). */
export const mediaRoutes = fp(media, { name: 'meme-media', dependencies: ['meme-repository', 'meme-read-model'] })

import type { RouteRateLimit } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { EXPOSED_HEADERS } from '../memes/cors.ts'
import { IMMUTABLE, matchesEtag } from './routes.ts'

const PREFIX = '/media/'
const ID = /^[a-f0-9]{64}$/
const EXPOSED = EXPOSED_HEADERS.join(', ')

/**
 * Cache hits of GET /media/{id} answered in a root onRequest hook registered before CORS, so they skip the generic
 * hook chain (CORS options delegator, validation, the async route stages), which cost about as much as the rest of
 * the request. The answer is the route's: the same rate limit (`enforceRateLimit`), the CORS headers the CORS plugin
 * gives a public read, ETag/Cache-Control, 304 for a matching If-None-Match, the view counted; the security headers
 * come from the base plugin's onSend as for every answer. Only the plain form is taken here, a public meme by the
 * read model with its bytes in the cache (or a 304); HEAD, `?download`, misses, unknown ids and the 404s go to the
 * route. Tests compare a hit with the route's answer header for header.
 */
export const mediaHitsPlugin = fp<{ mediaLimit: RouteRateLimit }>(
  async function mediaHits(fastify: FastifyInstance, { mediaLimit }) {
    fastify.addHook('onRequest', async (request, reply) => {
      const { url } = request
      if (request.method !== 'GET' || url.length !== PREFIX.length + 64 || !url.startsWith(PREFIX)) return
      const id = url.slice(PREFIX.length)
      if (!ID.test(id) || !fastify.readModel.current?.has(id)) return
      const etag = `"${id}"`
      const notModified = matchesEtag(request.headers['if-none-match'], etag)
      const bytes = notModified ? undefined : fastify.mediaCache?.get(id)
      if (!notModified && !bytes) return
      // CORS first, as the CORS plugin's hook runs before the rate limit: a 429 is readable cross-origin too.
      reply.header('Vary', 'Origin').header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', EXPOSED)
      await fastify.enforceRateLimit(mediaLimit, request, reply)
      reply.header('ETag', etag).header('Cache-Control', IMMUTABLE)
      fastify.mediaCounters.hit(id, false)
      if (notModified) return reply.code(304).send()
      return reply.type('image/webp').send(bytes)
    })
  },
  { name: 'meme-media-hits' },
)

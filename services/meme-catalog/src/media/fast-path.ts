import { type FastPath, type FastRequest, passCounted, type RouteRateLimit } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { publicReadCorsHeaders as cors } from '../memes/cors.ts'
import { MEME_ID_PATTERN } from '../memes/schemas.ts'
import { renditionEtag } from './rendition-routes.ts'
import { RENDITION_NAMES } from './renditions.ts'
import { IMMUTABLE, matchesEtag } from './routes.ts'

/** Immutable bytes served under `prefix + key`, the key naming their content (a hash): what /media serves. */
export interface CachedMediaSource {
  prefix: string
  /** The whole rest of the URL; anything else (a query string, another path) goes to the router. */
  key: RegExp
  /** The strong entity tag of the bytes under `key`. */
  etag(key: string): string
  /** May the bytes be served now (asked before and after counting the rate limit)? */
  isPublic(key: string): boolean
  /** The bytes if they are in memory; a miss goes to the route, which reads them. */
  cached(key: string): Buffer | undefined
  /** A GET answered (200 or 304): a view. */
  served(key: string): void
  contentType: string
  rateLimit: RouteRateLimit
}

/**
 * The hot answers of a media route, given before Fastify routes the request: a GET or HEAD of a public key whose
 * bytes are cached (200) or whose tag the client names in If-None-Match (304). The answer is the route's: the same
 * rate limit (a spent budget passes the counted request to the route, which answers the 429), the CORS headers of a
 * public read, ETag and Cache-Control, the view counted on a GET; the request id, security headers and log line come
 * from the pre-router mechanism. Range, other methods, odd URLs, misses and a HEAD's 304 go to the route.
 */
export function cachedMediaPath(fastify: FastifyInstance, source: CachedMediaSource): FastPath {
  const { prefix, rateLimit } = source
  async function answer(request: FastRequest, key: string, etag: string, bytes: Buffer | undefined) {
    const consumed = await fastify.rateLimiter.consume(rateLimit, request.ip)
    // Counted once: the route's rate-limit hook takes this count for its 429 (or its 404 if removed meanwhile).
    if (!consumed.allowed || !source.isPublic(key)) {
      passCounted(request.raw, rateLimit.bucket, consumed)
      return undefined
    }
    const { state } = consumed
    // One literal: spreading the CORS constants in cost more than the rest of the answer (V8's object clone).
    const headers: Record<string, string | number> = {
      vary: cors.vary,
      'access-control-allow-origin': cors['access-control-allow-origin'],
      'access-control-expose-headers': cors['access-control-expose-headers'],
      'ratelimit-limit': state.limit,
      'ratelimit-remaining': state.remaining,
      'ratelimit-reset': state.resetAt,
      etag,
      'cache-control': IMMUTABLE,
    }
    if (request.method === 'GET') source.served(key)
    if (!bytes) return { status: 304, headers }
    headers['content-type'] = source.contentType
    headers['content-length'] = bytes.length
    return { status: 200, headers, body: bytes }
  }
  return (request) => {
    const { method, url, headers } = request
    if ((method !== 'GET' && method !== 'HEAD') || !url.startsWith(prefix) || headers.range !== undefined) return
    const key = url.slice(prefix.length)
    if (!source.key.test(key) || !source.isPublic(key)) return
    const etag = source.etag(key)
    const notModified = matchesEtag(headers['if-none-match'], etag)
    const bytes = notModified ? undefined : source.cached(key)
    if (!notModified && !bytes) return
    // Fastify's HEAD route adds a Content-Length: 0 to a 304; a rare request, left to it.
    if (notModified && method === 'HEAD') return
    return answer(request, key, etag, bytes)
  }
}

/** `<id>/<name>` of a rendition: the meme id, then the rendition name. */
const renditionKey = new RegExp(`^[a-f0-9]{64}/(${RENDITION_NAMES.join('|')})$`)
const memeIdOf = (key: string) => key.slice(0, 64)

/**
 * GET /media/{id} and /media/{id}/{rendition} hits answered before the router; registered after the media and
 * rendition routes (their cache, counters and the rendition store's cache keys).
 */
export const mediaFastPath = fp<{ mediaLimit: RouteRateLimit }>(
  async function mediaFastPath(fastify: FastifyInstance, { mediaLimit }) {
    fastify.addFastPath(
      cachedMediaPath(fastify, {
        prefix: '/media/',
        key: new RegExp(MEME_ID_PATTERN),
        // The id is the SHA-256 of the bytes, as the route tags them.
        etag: (id) => `"${id}"`,
        isPublic: (id) => fastify.readModel.current?.has(id) === true,
        cached: (id) => fastify.mediaCache?.get(id),
        served: (id) => fastify.mediaCounters.hit(id, false),
        contentType: 'image/webp',
        rateLimit: mediaLimit,
      }),
    )
    fastify.addFastPath(
      cachedMediaPath(fastify, {
        prefix: '/media/',
        key: renditionKey,
        etag: (key) => renditionEtag(memeIdOf(key), key.slice(65)),
        isPublic: (key) => fastify.readModel.current?.has(memeIdOf(key)) === true,
        // The rendition store caches bytes under the same `<id>/<name>` key.
        cached: (key) => fastify.mediaCache?.get(key),
        // Renditions are not counted as views.
        served: () => {},
        contentType: 'image/webp',
        rateLimit: mediaLimit,
      }),
    )
  },
  { name: 'meme-media-fast-path', dependencies: ['meme-media', 'meme-media-renditions'] },
)

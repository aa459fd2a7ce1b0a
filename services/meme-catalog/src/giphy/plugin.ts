import { createHash } from 'node:crypto'
import {
  describeValidation,
  HttpError,
  isPreflight,
  noStore,
  type RouteRateLimit,
  setRateLimitHeaders,
  tooManyRequests,
} from '@app/common'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { giphyOpenapiRoute, registerGiphySwagger } from './openapi.ts'
import { giphyRoutes, responseId } from './routes.ts'
import { giphySchemas } from './schemas.ts'

/** GIPHY's messages for the statuses its gateway answers itself (with an empty response_id). */
const GATEWAY_MESSAGES: Record<number, string> = { 401: 'Unauthorized', 429: 'API rate limit exceeded' }

export const digest = (key: string) => createHash('sha256').update(key).digest('hex')

/** The keys GIPHY_API_KEYS lists (comma-separated), as SHA-256 digests; empty: every api_key (or none) is served. */
export function parseApiKeys(value: string): Set<string> {
  return new Set(
    value
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean)
      .map(digest),
  )
}

/** An answer in GIPHY's error envelope: empty data, the status and message in meta. */
function sendError(reply: FastifyReply, status: number, msg: string) {
  noStore(reply)
  const gateway = GATEWAY_MESSAGES[status]
  return reply.code(status).send({ data: [], meta: { status, msg: gateway ?? msg, response_id: gateway ? '' : responseId() } })
}

function giphyErrorHandler(error: FastifyError & Partial<HttpError>, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) return sendError(reply, 400, describeValidation(error.validation, error.validationContext))
  const status = error.statusCode ?? 500
  if (error instanceof HttpError) reply.headers(error.headers)
  if (status === 503) {
    if (!reply.hasHeader('Retry-After')) reply.header('Retry-After', 5)
    return sendError(reply, 503, error instanceof HttpError ? error.message : 'Service Unavailable')
  }
  if (status >= 400 && status < 500) return sendError(reply, status, error.message)
  request.log.error({ err: error }, 'unhandled error')
  return sendError(reply, 500, 'Internal Server Error')
}

/**
 * GIPHY's read API (v1) over the approved memes, under /v1 in a scope of its own: GIPHY's envelope for every answer
 * and error, the api_key allow-list and per-key budget, and its own OpenAPI document (/v1/openapi.json).
 */
async function giphy(fastify: FastifyInstance, { config }: { config: Config }) {
  for (const schema of giphySchemas) fastify.addSchema(schema)
  await registerGiphySwagger(fastify)
  fastify.setErrorHandler(giphyErrorHandler)
  fastify.setNotFoundHandler((request, reply) => {
    // A preflight nothing granted: refused the way browsers expect (as the service's own 404 handler does).
    if (isPreflight(request)) return reply.code(204).header('Content-Length', '0').send()
    return sendError(reply, 404, 'Not Found')
  })

  const allowed = parseApiKeys(config.GIPHY_API_KEYS)
  const window = config.RATE_LIMIT_WINDOW_SECONDS
  const keyLimit: RouteRateLimit = { bucket: 'giphy-key', max: config.GIPHY_KEY_RATE_LIMIT, windowSeconds: window }
  /** After the per-address limit (a refused key still spends the address's budget): the key, then its own budget. */
  async function checkKey(request: FastifyRequest, reply: FastifyReply) {
    const raw = (request.query as { api_key?: unknown }).api_key
    const key = typeof raw === 'string' && raw !== '' ? digest(raw) : undefined
    if (allowed.size > 0 && (key === undefined || !allowed.has(key))) throw new HttpError(401, 'Unauthorized')
    if (key === undefined) return
    const { allowed: within, state, retryAfterSeconds } = await fastify.rateLimiter.consume(keyLimit, `key:${key}`)
    // The headers tell the tighter of the two budgets.
    if (!request.rateLimit || state.remaining < request.rateLimit.remaining) {
      request.rateLimit = state
      setRateLimitHeaders(reply, state)
    }
    if (!within) throw tooManyRequests('API rate limit exceeded', retryAfterSeconds)
  }
  fastify.addHook('onRoute', (route) => {
    if (!route.config?.rateLimit) return
    const existing = route.onRequest
    route.onRequest = [...(existing ? (Array.isArray(existing) ? existing : [existing]) : []), checkKey]
  })

  const readLimit = { bucket: 'read', max: config.READ_RATE_LIMIT, windowSeconds: window }
  await fastify.register(giphyRoutes, { readLimit })
  await fastify.register(giphyOpenapiRoute)
}

export const giphyPlugin = fp(giphy, {
  name: 'meme-giphy',
  encapsulate: true,
  dependencies: ['app-rate-limit', 'meme-read-model', 'meme-media-renditions'],
})

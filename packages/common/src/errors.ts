import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** An error whose message is safe to show to the client with its status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string | number> = {},
    /** Extra body fields beside the message (e.g. moderation details). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

export const badRequest = (message: string) => new HttpError(400, message)
export const unauthorized = (message = 'Authentication required.') => new HttpError(401, message)
export const forbidden = (message: string) => new HttpError(403, message)
export const notFound = (message = 'Not found.') => new HttpError(404, message)
export const conflict = (message: string) => new HttpError(409, message)
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new HttpError(429, message, { 'Retry-After': Math.max(1, Math.ceil(retryAfterSeconds)) })

interface ValidationItem {
  instancePath?: string
  message?: string
  params?: Record<string, unknown>
}

/** "page: must be >= 1" from Ajv's error list, naming the field the client sent. */
export function describeValidation(items: ValidationItem[], context?: string): string {
  const first = items[0]
  if (!first) return 'Invalid request.'
  const params = first.params ?? {}
  let field = (first.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.')
  const named = params.missingProperty ?? params.additionalProperty
  if (named) field = field ? `${field}.${named}` : String(named)
  let message = first.message ?? 'is invalid'
  if (params.additionalProperty) message = 'is not an allowed field'
  if (params.missingProperty) message = 'is required'
  const where =
    context === 'body'
      ? 'body field'
      : context === 'querystring'
        ? 'query parameter'
        : context === 'params'
          ? 'path parameter'
          : (context ?? 'field')
  return field ? `Invalid ${where} '${field}': ${message}` : `Invalid ${where}: ${message}`
}

export interface ErrorHandlerOptions {
  /** Name of the message field of the error body: "error" (catalog) or "detail" (dashboard). */
  messageKey: 'error' | 'detail'
  /** Status for schema validation failures: 400 (catalog) or 422 (dashboard). */
  validationStatus: 400 | 422
  /** A body that is not JSON fails validation like any other bad body (validationStatus) instead of a 400. */
  unparsableBodyIsInvalid?: boolean
}

const unparsableBody = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY'])

export function createErrorHandler({ messageKey, validationStatus, unparsableBodyIsInvalid = false }: ErrorHandlerOptions) {
  return function errorHandler(error: FastifyError & Partial<HttpError>, request: FastifyRequest, reply: FastifyReply) {
    if (unparsableBodyIsInvalid && unparsableBody.has(error.code)) {
      return reply.code(validationStatus).send({ [messageKey]: `Invalid body: ${error.message}` })
    }
    if (error.validation) {
      return reply.code(validationStatus).send({ [messageKey]: describeValidation(error.validation, error.validationContext) })
    }
    const status = error.statusCode ?? 500
    if (error instanceof HttpError) {
      reply.headers(error.headers)
      if (status >= 500) request.log.warn({ err: error }, error.message)
      return reply.code(status).send({ ...error.extra, [messageKey]: error.message })
    }
    if (status === 503) {
      request.log.error({ err: error }, 'service unavailable')
      return reply
        .code(503)
        .header('Retry-After', 5)
        .send({ [messageKey]: error.message })
    }
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, body too large, unsupported media type...) are safe to show.
      return reply.code(status).send({ [messageKey]: error.message })
    }
    request.log.error({ err: error }, 'unhandled error')
    return reply.code(500).send({ [messageKey]: 'Internal server error.' })
  }
}

export function createNotFoundHandler(messageKey: 'error' | 'detail') {
  return function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
    // A CORS preflight nothing granted is refused the way browsers expect: 204 without any Access-Control-Allow-*
    // header (a 404 reads as a missing resource). Granted preflights are answered by the CORS plugin before this.
    if (isPreflight(request)) return reply.code(204).header('Content-Length', '0').send()
    return reply.code(404).send({ [messageKey]: `Route ${request.method} ${request.url.split('?')[0]} not found.` })
  }
}

/** An OPTIONS request from a browser asking whether a cross-origin request may be made. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  )
}

/** JSON nesting a body may have: far beyond any real request, far below what recursion elsewhere survives. */
export const MAX_BODY_DEPTH = 64

// In a `u` expression a surrogate pair is one code point: only a lone surrogate is in Cs.
const LONE_SURROGATE = /\p{Cs}/u

/** Why a parsed JSON body is refused (too deep, or text that is not Unicode), walked without recursion. */
export function jsonBodyProblem(value: unknown, maxDepth = MAX_BODY_DEPTH): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number]
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return 'contains text that is not valid Unicode (a lone surrogate)'
      continue
    }
    if (item === null || typeof item !== 'object') continue
    if (depth > maxDepth) return `nests deeper than ${maxDepth} levels`
    for (const [key, child] of Object.entries(item)) {
      if (LONE_SURROGATE.test(key)) return 'contains text that is not valid Unicode (a lone surrogate)'
      stack.push([child, depth + 1])
    }
  }
  return undefined
}

/**
 * Refuses JSON bodies nested deeper than MAX_BODY_DEPTH or holding lone surrogates (PostgreSQL cannot store
 * them) as a validation failure, before validation and handlers run.
 */
export function guardJsonBodies(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', async (request) => {
    const message = jsonBodyProblem(request.body)
    if (message === undefined) return
    throw Object.assign(new Error(message), {
      statusCode: 400,
      validation: [{ instancePath: '', message }],
      validationContext: 'body',
    })
  })
}

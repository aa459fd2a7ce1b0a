import type { RouteOptions } from 'fastify'
import { REQUEST_ID_HEADER } from './request-log.ts'

/** An OpenAPI response header, written as @fastify/swagger reads it from a response schema's `headers`. */
export interface HeaderDoc {
  type: 'string' | 'integer'
  description: string
  [keyword: string]: unknown
}

export type HeaderDocs = Record<string, HeaderDoc>

/** Sent with every answer (request-log.ts): the id the request is logged under. */
export const requestIdHeader: HeaderDocs = {
  [REQUEST_ID_HEADER]: {
    type: 'string',
    minLength: 1,
    maxLength: 128,
    description:
      'The id this request is logged under: the caller’s X-Request-Id when it is 1–128 printable ASCII characters ' +
      'without spaces, otherwise one generated for the request.',
  },
}

/** Sent with every 429 and 503 (errors.ts, rate-limit.ts). */
export const retryAfterHeader: HeaderDocs = {
  'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before retrying.' },
}

/** Sent with every answer of a rate-limited route (rate-limit.ts). */
export const rateLimitHeaders: HeaderDocs = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests allowed in the current window.' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window.' },
  'RateLimit-Reset': { type: 'string', format: 'date-time', description: 'When the current window ends.' },
}

/** Sent by answers marked with noStore() (security-headers.ts). */
export const noStoreHeader: HeaderDocs = {
  'Cache-Control': { type: 'string', description: 'no-store: the answer is never cached.' },
}

/** A response schema with headers added to the ones it documents (a copy: shared schemas stay untouched). */
export function withHeaders<T>(schema: T, headers: HeaderDocs): T {
  const existing = (schema as { headers?: HeaderDocs }).headers
  return { ...schema, headers: { ...existing, ...headers } }
}

/** An OpenAPI security requirement: scheme name to scopes. */
export type SecurityRequirement = Record<string, string[]>

export interface OpenapiTransformOptions {
  /** The operation's security; [] for a public operation. A route's own `schema.security` wins. */
  security(route: RouteOptions): SecurityRequirement[]
  /** Headers that every documented response of the route carries (e.g. Cache-Control set by a hook). */
  everyResponse?(route: RouteOptions): HeaderDocs
}

interface TransformInput {
  schema: Record<string, any>
  url: string
  route: RouteOptions
}

/**
 * A @fastify/swagger `transform`: states each operation's security explicitly (public ones say
 * security: []) and documents the headers a hook adds to every answer of a route on each response (X-Request-Id
 * everywhere, RateLimit-* on a rate-limited route, plus `everyResponse`).
 */
export function openapiTransform({ security, everyResponse }: OpenapiTransformOptions) {
  return ({ schema, url, route }: TransformInput) => {
    if (!schema || schema.hide) return { schema, url }
    // rate-limit.ts sets RateLimit-* on every answer of a route that names a budget.
    const headers = { ...requestIdHeader, ...(route.config?.rateLimit ? rateLimitHeaders : {}), ...everyResponse?.(route) }
    const responses = schema.response as Record<string, unknown> | undefined
    const response =
      responses && Object.keys(headers).length > 0
        ? Object.fromEntries(Object.entries(responses).map(([status, body]) => [status, withHeaders(body, headers)]))
        : responses
    return { schema: { ...schema, security: schema.security ?? security(route), response }, url }
  }
}

import { noStoreHeader, rateLimitHeaders, retryAfterHeader } from '@app/common'
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

export const RateLimit = Type.Object(
  {
    limit: Type.Integer(),
    remaining: Type.Integer(),
    resetAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'RateLimit', description: 'The caller’s read budget; equal to the RateLimit-* headers.' },
)

export const ErrorBody = Type.Object({ error: Type.String() }, { $id: 'Error', description: 'An error message.' })

/** Reference to a shared schema by its $id, typed as the schema (rendered as components/schemas/<id>). */
export function ref<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  // @fastify/swagger drops keywords beside $ref except `description`: carry a response description there.
  const described =
    typeof options['x-response-description'] === 'string' ? { description: options['x-response-description'] } : {}
  return Type.Unsafe<Static<T>>({ ...options, ...described, $ref: `${schema.$id}#` })
}

/** A success schema with the description the OpenAPI document shows for it. */
export const described = <T extends TSchema>(schema: T, description: string): T =>
  ({ ...schema, 'x-response-description': description }) as T

/** An answer with the Error body. */
export const errorResponse = (description: string) => ref(ErrorBody, { 'x-response-description': description })

/** Headers every rate-limited answer carries (the OpenAPI transform adds them to each response of such a route). */
export { rateLimitHeaders, retryAfterHeader }

/** A success answer sent with Cache-Control: no-store (RateLimit-* come from the OpenAPI transform). */
export function noStoreResponse<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description, headers: noStoreHeader } as T
}

/** A 503 answer: Error body and Retry-After. */
export const unavailableResponse = (description: string) =>
  ref(ErrorBody, {
    'x-response-description': description,
    headers: retryAfterHeader,
  })

/** 503 of every database-backed route: PostgreSQL is unreachable (see documentDatabaseUnavailable). */
export const databaseUnavailableResponse = unavailableResponse('The database is unreachable; retry after Retry-After seconds.')

/** 429: Error body, Retry-After plus the RateLimit-* headers (remaining 0). */
export const tooManyRequestsResponse = ref(ErrorBody, {
  'x-response-description': 'Rate limited; retry after Retry-After seconds.',
  headers: { ...retryAfterHeader, ...rateLimitHeaders },
})

/** 429 of an upload: a quota or the upload rate limit is spent (RateLimit-* comes with every upload answer). */
export const tooManyUploadsResponse = ref(ErrorBody, {
  'x-response-description': 'Upload quota or upload rate limit exhausted; retry after Retry-After seconds.',
  headers: retryAfterHeader,
})

export interface SharedSchemasOptions {
  /** Each domain's named schemas, after the service-wide ones. */
  components: TSchema[]
}

/** Adds the schemas clients see by name (components/schemas) on the root instance, once. */
export const sharedSchemasPlugin = fp(
  async function sharedSchemasPlugin(fastify: FastifyInstance, { components }: SharedSchemasOptions) {
    for (const schema of [RateLimit, ErrorBody, ...components]) fastify.addSchema(schema)
  },
  { name: 'meme-shared-schemas' },
)

import { retryAfterHeader, withHeaders } from '@app/common'
import { type TSchema, Type } from '@sinclair/typebox'

/** The body of every handled error: {"detail": "..."}. */
export const ErrorBody = Type.Object({ detail: Type.String() })

/** A response schema with the description the OpenAPI document shows for it. */
export const described = <T extends TSchema>(schema: T, description: string): T =>
  ({ ...schema, 'x-response-description': description }) as T

/** 503 of every database-backed route (documentDatabaseUnavailable adds it to each). */
export const DatabaseUnavailableBody = withHeaders(
  described(Type.Object({ detail: Type.String() }), 'The database is unreachable; retry after the Retry-After header (seconds).'),
  retryAfterHeader,
)

/** What each error status means on any route (the spec's error table); a route may say it more precisely. */
const ERROR_DESCRIPTIONS = {
  400: 'A required node setting is missing (named in detail).',
  401: 'No logged-in session.',
  403: 'Cross-site request refused: the Origin or Referer names another site.',
  404: 'Not found.',
  409: 'Another node action is still running.',
  422: 'The request is invalid (the detail names the field).',
  429: 'Too many requests; retry after the Retry-After header (seconds).',
  502: 'The node failed: its RPC or SSH operation did not succeed (the detail says how).',
} as const

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS

/** An error answer with the {detail} body and a description. */
export const errorAnswer = (description: string) => described(ErrorBody, description)

/** The documented error answers of a route: each status with the error body and its usual meaning. */
export function errorResponse<Status extends ErrorStatus>(...statuses: Status[]): Record<Status, typeof ErrorBody> {
  return Object.fromEntries(
    statuses.map((status) => {
      const answer = errorAnswer(ERROR_DESCRIPTIONS[status])
      return [status, status === 429 ? withHeaders(answer, retryAfterHeader) : answer]
    }),
  ) as Record<Status, typeof ErrorBody>
}

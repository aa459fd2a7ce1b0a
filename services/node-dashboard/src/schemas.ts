import { Type } from '@sinclair/typebox'

/** The body of every handled error: {"detail": "..."}. */
export const ErrorBody = Type.Object({ detail: Type.String() })

/** 503 of every database-backed route (documentDatabaseUnavailable adds it to each). */
export const DatabaseUnavailableBody = Type.Object(
  { detail: Type.String() },
  { description: 'The database is unreachable; retry after the Retry-After header (seconds).' },
)

/** The documented error answers of a route: each status with the error body. */
export function errorResponse<Status extends number>(...statuses: Status[]): Record<Status, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody])) as Record<Status, typeof ErrorBody>
}

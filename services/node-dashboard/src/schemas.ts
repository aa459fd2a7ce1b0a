import { Type } from '@sinclair/typebox'

/** The body of every handled error: {"detail": "..."}. */
export const ErrorBody = Type.Object({ detail: Type.String() })

/** 503 of every database-backed route (documentDatabaseUnavailable adds it to each). */
export const DatabaseUnavailableBody = Type.Object(
  { detail: Type.String() },
  { description: 'The database is unreachable; retry after the Retry-After header (seconds).' },
)

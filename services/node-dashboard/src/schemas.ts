import { Type } from '@sinclair/typebox'

/** The body of every handled error: {"detail": "..."}. */
export const ErrorBody = Type.Object({ detail: Type.String() })

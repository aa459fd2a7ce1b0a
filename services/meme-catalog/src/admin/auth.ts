import { createHash, timingSafeEqual } from 'node:crypto'
import { HttpError } from '@app/common'
import type { FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made an authenticated admin request (written to admin_audit). */
    adminActor: string | null
  }
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

export interface AdminAuth {
  /** "admin:<12 hex>": a fingerprint naming the token in the audit log without revealing it. */
  readonly actor: string
  verify(header: string | undefined): boolean
  /** onRequest hook: 401 unless the request carries the admin bearer token. */
  hook(request: FastifyRequest): Promise<void>
}

export function createAdminAuth(token: string): AdminAuth {
  // Comparing fixed-length hashes keeps the comparison constant-time whatever the caller sends.
  const expected = digest(token)
  const actor = `admin:${createHash('sha256').update(`meme-catalog admin token\0${token}`).digest('hex').slice(0, 12)}`
  function verify(header: string | undefined): boolean {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')
    const presented = digest(match?.[1] ?? '')
    return timingSafeEqual(presented, expected) && match !== null
  }
  return {
    actor,
    verify,
    async hook(request) {
      if (!verify(request.headers.authorization)) {
        throw new HttpError(401, 'A valid admin token is required (Authorization: Bearer <token>).', {
          'WWW-Authenticate': 'Bearer realm="meme-catalog-admin"',
        })
      }
      request.adminActor = actor
    },
  }
}

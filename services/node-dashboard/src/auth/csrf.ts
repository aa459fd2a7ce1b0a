import { HttpError } from '@app/common'
import type { FastifyRequest } from 'fastify'

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

function originOf(value: string): string | null {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null
  } catch {
    return null
  }
}

/**
 * CSRF rule: a state-changing request that names an Origin (or, without one, a Referer) must name
 * this dashboard's own origin (scheme + Host header). Requests with neither header are allowed:
 * browsers always send Origin on cross-site POST/PUT/PATCH/DELETE, and the SameSite=Lax cookie is
 * not sent on those anyway; command-line clients send neither.
 */
export function checkSameOrigin(request: FastifyRequest): void {
  if (!STATE_CHANGING.has(request.method)) return
  const origin = request.headers.origin
  const referer = request.headers.referer
  const claimed = origin !== undefined ? origin : referer
  if (claimed === undefined) return
  const own = `${request.protocol}://${request.host}`.toLowerCase()
  const source = originOf(claimed)
  if (source === null || source.toLowerCase() !== originOf(own)?.toLowerCase()) {
    throw new HttpError(403, 'Cross-origin request refused: the Origin or Referer is not this dashboard.')
  }
}

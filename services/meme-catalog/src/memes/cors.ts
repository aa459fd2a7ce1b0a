import type { FastifyCorsOptions } from '@fastify/cors'
import type { FastifyRequest } from 'fastify'

/** Headers a cross-origin script may read: the rate-limit budget, retry time and media headers. */
export const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'ETag',
  'Content-Disposition',
]

/** What the CORS plugin adds to a public read (GET or HEAD outside the admin API): for answers given before it. */
export const publicReadCorsHeaders = {
  vary: 'Origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
} as const

export function parseOrigins(value: string): string[] {
  return value
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean)
}

/**
 * Public reads from any origin; uploads (POST /api/memes, and its preflight) only from the listed
 * origins; the admin API never cross-origin.
 */
export function corsOptions(uploadOrigins: string[]): FastifyCorsOptions {
  // Built once: the delegator runs on every request and only picks one.
  // strictPreflight off: an OPTIONS without preflight headers is answered plainly, not with a text/plain 400.
  const closed = { origin: false, strictPreflight: false }
  const upload = {
    origin: uploadOrigins.length > 0 ? uploadOrigins : false,
    methods: ['GET', 'HEAD', 'POST'],
    exposedHeaders: EXPOSED_HEADERS,
    strictPreflight: false,
  }
  const publicRead = { origin: '*', methods: ['GET', 'HEAD'], exposedHeaders: EXPOSED_HEADERS, strictPreflight: false }
  return {
    hook: 'onRequest',
    delegator(request: FastifyRequest, callback) {
      const preflight = request.method === 'OPTIONS'
      const method = preflight ? String(request.headers['access-control-request-method'] ?? '').toUpperCase() : request.method
      // The matched route decides (the router decodes `%61dmin`); a preflight matched only the CORS route, so its
      // path is decoded the same way. An undecodable path gets no grant.
      const path = preflight ? decodedPath(request.url) : (request.routeOptions.url ?? decodedPath(request.url))
      if (path === null || isAdminPath(path)) return callback(null, closed)
      if (path !== '/api/memes' || method !== 'POST') return callback(null, publicRead)
      // An unlisted origin gets no CORS header at all (its refused preflight is a bare 204 from the 404 handler).
      return callback(null, uploadOrigins.includes(String(request.headers.origin)) ? upload : closed)
    },
  }
}

const isAdminPath = (path: string) => path === '/api/admin' || path.startsWith('/api/admin/') || path.startsWith('/admin/')

function decodedPath(url: string): string | null {
  try {
    return decodeURIComponent(url.split('?')[0])
  } catch {
    return null
  }
}

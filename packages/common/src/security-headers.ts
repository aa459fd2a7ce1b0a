import type { FastifyReply } from 'fastify'

/**
 * The baseline of an answer that is data, not a page (JSON, errors, 404s, media, documents): nothing in it may
 * run, be sniffed as another type, be framed or leak the URL as a referrer.
 */
export const apiSecurityHeaders: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
}

/** The headers a service puts on every answer. */
export interface SecurityHeaderPolicy {
  /** Added to every answer that has not set them itself (pages set their stricter ones first). */
  baseline: Record<string, string>
  /** Answers under these path prefixes are never cached, whatever their route set. */
  noStorePrefixes?: readonly string[]
}

export const apiSecurityPolicy: SecurityHeaderPolicy = { baseline: apiSecurityHeaders }

/** Marks a response as not to be stored by any cache. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store')
}

/** Adds the policy's headers an answer lacks: the one mechanism for routed answers and Fastify's own errors. */
export function addMissingSecurityHeaders(reply: FastifyReply, url: string, policy: SecurityHeaderPolicy): void {
  if (policy.noStorePrefixes?.some((prefix) => url.startsWith(prefix))) noStore(reply)
  for (const [name, value] of Object.entries(policy.baseline)) if (!reply.hasHeader(name)) reply.header(name, value)
}

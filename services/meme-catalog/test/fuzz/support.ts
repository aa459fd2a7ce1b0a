import { type FuzzRequest, type FuzzResponse, fuzzSeed, injectSend, type OpenApiDocument, Random } from '@app/testing/fuzz'

export { injectSend }

import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'

export const ADMIN_TOKEN = 'fuzz-admin-token-0123456789abcdef'

/** Every limit high enough that the fuzz reaches the handlers rather than the 429s (still allowed). */
export const FUZZ_ENV = {
  ADMIN_TOKEN,
  CAPTIONER: 'none',
  CAPTION_CONCURRENCY: '0',
  READ_RATE_LIMIT: '1000000',
  MEDIA_RATE_LIMIT: '1000000',
  ADMIN_RATE_LIMIT: '1000000',
  UPLOAD_RATE_LIMIT: '1000000',
  UPLOAD_QUOTA_HOUR: '100000',
  UPLOAD_QUOTA_DAY: '100000',
  UPLOAD_QUOTA_GLOBAL_DAY: '100000',
}

/** Statuses the catalog may answer on any route with {"error"}: its documented generic errors, and 414 (Fastify's maxParamLength). */
export const CATALOG_GENERIC = [400, 404, 405, 413, 414, 415, 429]

/** Findings reported to the service owners, counted rather than failed (see docs/reliability.md). */
export function catalogKnown(request: FuzzRequest, response: FuzzResponse): string | undefined {
  // OPTIONS is CORS plumbing, not an API operation: @fastify/cors answers it 204 with no body.
  if (request.method === 'OPTIONS' && response.statusCode === 204 && response.body === '') {
    return 'cors-options-204'
  }
  // Answers to HEAD carry no body, so their error shape cannot be checked.
  if (request.method === 'HEAD' && [400, 414].includes(response.statusCode) && response.body === '') {
    return `fastify-${response.statusCode}-head`
  }
  return undefined
}

export const seed = fuzzSeed()
export const random = new Random(seed)

/**
 * How a long run's requests (FUZZ_REQUESTS, 100 000 with FUZZ_LONG=1) split over the catalog's suites.
 * Uploads decode and classify every image, so they get a small share; the fractions add up to 1.
 */
export const CATALOG_SHARES = { public: 0.57, admin: 0.38, uploads: 0.05 }

export function buildFuzzApp(t: Parameters<typeof build>[0]) {
  return build(t, { env: FUZZ_ENV })
}

export async function fetchDoc(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ url, headers })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`)
  return res.json() as OpenApiDocument
}

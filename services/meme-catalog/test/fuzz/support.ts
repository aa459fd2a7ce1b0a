import {
  type FuzzReport,
  type FuzzRequest,
  type FuzzResponse,
  fuzzLong,
  fuzzSeed,
  injectSend,
  type OpenApiDocument,
  Random,
} from '@app/common/fuzz'

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
/** Requests per document: a few hundred in the normal run, thousands with FUZZ_LONG=1. */
export const budget = (short: number) => (fuzzLong() ? short * 20 : short)

export function buildFuzzApp(t: Parameters<typeof build>[0]) {
  return build(t, { env: FUZZ_ENV })
}

export async function fetchDoc(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ url, headers })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`)
  return res.json() as OpenApiDocument
}

/** One line per problem, for the assertion message. */
export const describe = (report: FuzzReport) =>
  report.problems
    .slice(0, 20)
    .map((p) => `${p.kind} ${p.request} -> ${p.status}: ${p.problem}`)
    .join('\n')

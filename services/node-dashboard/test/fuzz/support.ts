import { type FuzzRequest, type FuzzResponse, fuzzSeed, injectSend, type OpenApiDocument, Random } from '@app/testing/fuzz'

export { injectSend }

import type { FastifyInstance } from 'fastify'

/** Statuses the dashboard may answer on any route with {"detail"}: its documented error statuses, and 414 (maxParamLength). */
export const DASHBOARD_GENERIC = [401, 403, 404, 405, 413, 414, 415, 422, 429]

export const seed = fuzzSeed()
export const random = new Random(seed)
/** How a long run's requests (FUZZ_REQUESTS, 100 000 with FUZZ_LONG=1) split: logged in and not; they add up to 1. */
export const DASHBOARD_SHARES = { loggedIn: 0.75, anonymous: 0.25 }

/** Findings reported to the service owners, counted rather than failed (see docs/reliability.md). */
export function dashboardKnown(request: FuzzRequest, response: FuzzResponse): string | undefined {
  // Answers to HEAD carry no body, so their error shape cannot be checked.
  if (request.method === 'HEAD' && [400, 414, 422].includes(response.statusCode) && response.body === '') {
    return `fastify-${response.statusCode}-head`
  }
  return undefined
}

export async function fetchDoc(app: FastifyInstance) {
  const res = await app.inject('/openapi.json')
  if (res.statusCode !== 200) throw new Error(`/openapi.json: ${res.statusCode}`)
  return res.json() as OpenApiDocument
}

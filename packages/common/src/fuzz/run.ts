import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { type CheckOptions, checkResponse, type FuzzResponse } from './check.ts'
import type { OpenApiDocument } from './openapi.ts'
import type { FuzzRequest } from './requests.ts'

export interface FuzzProblem {
  request: string
  kind: string
  status: number
  problem: string
  /** The start of the body sent, to reproduce a finding without rerunning the seed. */
  payload?: string
}

export interface FuzzReport {
  sent: number
  statuses: Record<number, number>
  problems: FuzzProblem[]
  /** Answers that matched a known, reported deviation, by label. */
  known: Record<string, number>
  /** Requests sent with and without the caller's credentials. */
  authenticated: number
  anonymous: number
}

/** How the suite talks to the app: Fastify's inject in tests, real HTTP elsewhere. */
export type Send = (request: FuzzRequest) => Promise<FuzzResponse>

/** Sends every request in order and checks each answer against the document. */
export async function runFuzz(
  doc: OpenApiDocument,
  requests: Iterable<FuzzRequest>,
  send: Send,
  options: CheckOptions,
): Promise<FuzzReport> {
  const report: FuzzReport = { sent: 0, statuses: {}, problems: [], known: {}, authenticated: 0, anonymous: 0 }
  for (const request of requests) {
    const response = await send(request)
    report.sent++
    if (request.authenticated) report.authenticated++
    else report.anonymous++
    report.statuses[response.statusCode] = (report.statuses[response.statusCode] ?? 0) + 1
    const problem = checkResponse(doc, request, response, options)
    const label = problem ? options.known?.(request, response) : undefined
    if (label) report.known[label] = (report.known[label] ?? 0) + 1
    else if (problem) {
      report.problems.push({
        request: `${request.method} ${request.url.slice(0, 160)}`,
        kind: request.kind,
        status: response.statusCode,
        problem,
        ...(request.payload === undefined ? {} : { payload: request.payload.toString().slice(0, 300) }),
      })
    }
  }
  return report
}

let gc: (() => void) | undefined

/** Heap in use after a full collection (turns on --expose-gc at run time when node was started without it). */
export function heapAfterGc(): number {
  if (!gc) {
    const exposed = (globalThis as { gc?: () => void }).gc
    if (exposed) gc = exposed
    else {
      setFlagsFromString('--expose-gc')
      gc = runInNewContext('gc') as () => void
    }
  }
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

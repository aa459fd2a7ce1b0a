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
  /** The start of the answer's body. */
  answer: string
  /** Which request of its run it was (1-based): with the seed, where to find it again. */
  index: number
}

export interface FuzzReport {
  sent: number
  statuses: Record<number, number>
  /** The first problems found, in full; a broken route in a long run must not fill the heap. */
  problems: FuzzProblem[]
  /** Problems found beyond those kept in `problems`. */
  problemsNotKept: number
  /** Answers that matched a known, reported deviation, by label. */
  known: Record<string, number>
  /** Requests sent with and without the caller's credentials. */
  authenticated: number
  anonymous: number
  /** Wall-clock time spent sending and checking, in milliseconds. */
  elapsedMs: number
}

/** How the suite talks to the app: Fastify's inject in tests, real HTTP elsewhere. */
export type Send = (request: FuzzRequest) => Promise<FuzzResponse>

/** A line on stderr every `every` requests, so a long run in the background can be followed. */
export interface Progress {
  label: string
  every?: number | undefined
}

const KEPT_PROBLEMS = 50

const emptyReport = (): FuzzReport => ({
  sent: 0,
  statuses: {},
  problems: [],
  problemsNotKept: 0,
  known: {},
  authenticated: 0,
  anonymous: 0,
  elapsedMs: 0,
})

/** Sends every request in order and checks each answer against the document; only tallies are kept. */
export async function runFuzz(
  doc: OpenApiDocument,
  requests: Iterable<FuzzRequest>,
  send: Send,
  options: CheckOptions,
  progress?: Progress,
): Promise<FuzzReport> {
  const report = emptyReport()
  const started = performance.now()
  for (const request of requests) {
    const response = await send(request)
    report.sent++
    if (request.authenticated) report.authenticated++
    else report.anonymous++
    report.statuses[response.statusCode] = (report.statuses[response.statusCode] ?? 0) + 1
    const problem = checkResponse(doc, request, response, options)
    const label = problem ? options.known?.(request, response) : undefined
    if (label) report.known[label] = (report.known[label] ?? 0) + 1
    else if (problem && report.problems.length >= KEPT_PROBLEMS) report.problemsNotKept++
    else if (problem) {
      report.problems.push({
        request: `${request.method} ${request.url.slice(0, 160)}`,
        kind: request.kind,
        status: response.statusCode,
        problem,
        answer: response.body.slice(0, 300),
        index: report.sent,
        ...(request.payload === undefined ? {} : { payload: request.payload.toString().slice(0, 300) }),
      })
    }
    if (progress?.every && report.sent % progress.every === 0) {
      const seconds = (performance.now() - started) / 1000
      process.stderr.write(
        `${progress.label}: ${report.sent} sent in ${seconds.toFixed(0)} s, ${formatStatuses(report.statuses)}\n`,
      )
    }
  }
  report.elapsedMs = performance.now() - started
  return report
}

/** Several reports as one: sums of every tally, the kept problems of all. */
export function mergeReports(reports: readonly FuzzReport[]): FuzzReport {
  const total = emptyReport()
  for (const r of reports) {
    total.sent += r.sent
    total.authenticated += r.authenticated
    total.anonymous += r.anonymous
    total.elapsedMs += r.elapsedMs
    total.problems.push(...r.problems)
    total.problemsNotKept += r.problemsNotKept
    for (const [s, n] of Object.entries(r.statuses)) total.statuses[Number(s)] = (total.statuses[Number(s)] ?? 0) + n
    for (const [k, n] of Object.entries(r.known)) total.known[k] = (total.known[k] ?? 0) + n
  }
  return total
}

/** Status tallies the way docs/reliability.md writes them: "200 ×123, 400 ×51". */
export function formatStatuses(statuses: Record<number, number>): string {
  return Object.entries(statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s} ×${n}`)
    .join(', ')
}

/** One line for the test log: requests sent, time, statuses and known deviations. */
export function summarizeReport(label: string, report: FuzzReport): string {
  const known = Object.keys(report.known).length ? `; known ${JSON.stringify(report.known)}` : ''
  const rate = report.elapsedMs > 0 ? (report.sent / (report.elapsedMs / 1000)).toFixed(0) : '?'
  return `${label}: ${report.sent} requests in ${(report.elapsedMs / 1000).toFixed(1)} s (${rate}/s): ${formatStatuses(report.statuses)}${known}`
}

/** The kept problems, one line each, and how many more were found. */
export function describeProblems(report: FuzzReport, max = 20): string {
  const lines = report.problems.slice(0, max).map((p) => `#${p.index} ${p.kind} ${p.request} -> ${p.status}: ${p.problem}`)
  const more = report.problems.length - Math.min(max, report.problems.length) + report.problemsNotKept
  if (more > 0) lines.push(`... and ${more} more`)
  return lines.join('\n')
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

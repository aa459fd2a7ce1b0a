import { setTimeout as sleep } from 'node:timers/promises'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { type OpenApiPaths, undocumentedAnswers } from '../documented-answers.ts'
import type { PrivatePostgres } from './private-postgres-server.ts'

/** One answer the app gave while the traffic ran, named by the kind of call that got it. */
export interface TrafficAnswer {
  kind: string
  startedAt: number
  endedAt: number
  status: number
  body: string
  headers: LightMyRequestResponse['headers']
}

export type TrafficCall = (kind: string, options: InjectOptions) => Promise<TrafficAnswer>

export interface Traffic {
  /** Every answer so far, in the order they came. */
  answers: TrafficAnswer[]
  /** Lets the round in progress finish, then resolves. */
  stop(): Promise<void>
}

/**
 * One client that runs `round` again and again against `app`, 20 ms apart, the way a browser session
 * would, recording every answer until stopped.
 */
export function startTraffic(
  app: { inject(options: InjectOptions): Promise<LightMyRequestResponse> },
  round: (call: TrafficCall) => Promise<void>,
): Traffic {
  const answers: TrafficAnswer[] = []
  let running = true
  const call: TrafficCall = async (kind, options) => {
    const startedAt = Date.now()
    const res = await app.inject(options)
    const answer = { kind, startedAt, endedAt: Date.now(), status: res.statusCode, body: res.body, headers: res.headers }
    answers.push(answer)
    return answer
  }
  const loop = (async () => {
    while (running) {
      await round(call)
      await sleep(20)
    }
  })()
  return {
    answers,
    async stop() {
      running = false
      await loop
    },
  }
}

export interface Outage {
  /** When PostgreSQL was stopped. */
  downFrom: number
  /** The answers to calls made and answered while PostgreSQL was down. */
  down: TrafficAnswer[]
  /** When PostgreSQL was started again. */
  upAgain: number
  /** When the first answer `recovered` accepts after the start ended; undefined when none came within 30 s. */
  recoveredAt?: number
}

/**
 * Stops `pg` (`fast`: clients disconnected; `immediate`: a crash) under `traffic`, keeps it down for
 * `downMs`, starts it again, waits up to 30 s for an answer `recovered` accepts, then `settleMs` more.
 */
export async function postgresOutage(
  pg: PrivatePostgres,
  traffic: Traffic,
  {
    mode,
    recovered,
    downMs = 5000,
    settleMs,
  }: { mode: 'fast' | 'immediate'; recovered: (answer: TrafficAnswer) => boolean; downMs?: number; settleMs: number },
): Promise<Outage> {
  await pg.stop(mode)
  const downFrom = Date.now()
  await sleep(downMs)
  const downUntil = Date.now()
  await pg.start()
  const upAgain = Date.now()
  let recoveredAt: number | undefined
  while (!recoveredAt && Date.now() - upAgain < 30_000) {
    await sleep(200)
    recoveredAt = traffic.answers.find((x) => x.startedAt > upAgain && recovered(x))?.endedAt
  }
  await sleep(settleMs)
  const down = traffic.answers.filter((x) => x.startedAt >= downFrom && x.endedAt <= downUntil)
  return { downFrom, down, upAgain, recoveredAt }
}

/** How many answers each "kind status" got, for the log. */
export function tally(answers: readonly TrafficAnswer[]): Record<string, number> {
  return answers.reduce<Record<string, number>>((acc, x) => {
    acc[`${x.kind} ${x.status}`] = (acc[`${x.kind} ${x.status}`] ?? 0) + 1
    return acc
  }, {})
}

/** The longest time any of `answers` took, in ms. */
export const slowest = (answers: readonly TrafficAnswer[]) => Math.max(...answers.map((x) => x.endedAt - x.startedAt))

/** "GET /api/x 503" for every status an answer got that the document does not list for its kind's operation. */
export function undocumentedTraffic(
  doc: OpenApiPaths,
  operations: Record<string, readonly [method: string, path: string]>,
  answers: readonly TrafficAnswer[],
): string[] {
  return undocumentedAnswers(
    doc,
    answers.map((x) => ({ operation: operations[x.kind] as readonly [string, string], status: x.status })),
  )
}

import { readdir } from 'node:fs/promises'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from '@sinclair/typebox'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from './db/index.ts'
import { noStoreHeader } from './openapi.ts'
import { noStore } from './security-headers.ts'

/** What a check answers: undefined when it passes, otherwise why not (a fixed phrase, never an error's text). */
export type ReadinessCheck = () => Promise<string | undefined>

/** Longest a check may take: a probe of a database that does not answer fails instead of hanging. */
export const READINESS_CHECK_TIMEOUT_MS = 2_000

export const ReadinessBody = Type.Object({
  ready: Type.Boolean({ description: 'true when every check passed' }),
  checks: Type.Array(
    Type.Object({
      name: Type.String({ description: 'database, migrations, or a service’s own (the catalog’s classifier)' }),
      ok: Type.Boolean(),
      reason: Type.Optional(Type.String({ description: 'why the check failed' })),
    }),
  ),
})
type ReadinessAnswer = Static<typeof ReadinessBody>

export interface Readiness {
  /** Adds a check run by every readiness probe (a service's own dependency, e.g. a model). */
  add(name: string, check: ReadinessCheck): void
  /** Runs every check, each bounded by the timeout; concurrent probes share one run. */
  evaluate(): Promise<ReadinessAnswer>
}

declare module 'fastify' {
  interface FastifyInstance {
    readiness: Readiness
  }
}

function bounded(check: ReadinessCheck, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs)
  })
  return Promise.race([check(), timeout]).finally(() => clearTimeout(timer))
}

export interface ReadinessOptions {
  db: Database
  /** The service's migrations folder: every file in it must be recorded as applied. */
  migrationsDir: string
  log: FastifyBaseLogger
  timeoutMs?: number
}

/** The database and migration checks every service has; the service adds its own. */
export async function createReadiness({
  db,
  migrationsDir,
  log,
  timeoutMs = READINESS_CHECK_TIMEOUT_MS,
}: ReadinessOptions): Promise<Readiness> {
  const migrations = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql'))
  // One query answers both: the database is reachable, and which migrations it has recorded.
  let applied: Promise<Set<string> | undefined> | undefined
  const appliedMigrations = () => {
    applied ??= db
      .query<{ name: string }>('SELECT name FROM schema_migrations')
      .then(
        ({ rows }) => new Set(rows.map((r) => r.name)),
        (error: unknown) => {
          log.warn({ err: error }, 'readiness: database probe failed')
          return undefined
        },
      )
      .finally(() => {
        applied = undefined
      })
    return applied
  }
  const checks = new Map<string, ReadinessCheck>([
    ['database', async () => ((await appliedMigrations()) ? undefined : 'unreachable')],
    [
      'migrations',
      async () => {
        const done = await appliedMigrations()
        if (!done) return 'unknown: the database is unreachable'
        const missing = migrations.filter((name) => !done.has(name))
        return missing.length === 0 ? undefined : `${missing.length} not applied`
      },
    ],
  ])
  let running: Promise<ReadinessAnswer> | undefined
  async function run(): Promise<ReadinessAnswer> {
    const results = await Promise.all(
      [...checks].map(async ([name, check]) => {
        const reason = await bounded(check, timeoutMs).catch(() => 'check failed')
        return reason === undefined ? { name, ok: true } : { name, ok: false, reason }
      }),
    )
    return { ready: results.every((r) => r.ok), checks: results }
  }
  return {
    add(name, check) {
      checks.set(name, check)
    },
    evaluate() {
      running ??= run().finally(() => {
        running = undefined
      })
      return running
    },
  }
}

/**
 * Readiness: 200 when the service can serve (database reachable, migrations applied, its own checks), 503
 * naming the failing checks. Answers within the check timeout even when the database hangs. Probes are not
 * logged at info (a load balancer asks every few seconds).
 */
export const readinessRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get(
    '/api/ready',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness',
        description:
          'Whether this instance can serve: the database answers, its migrations are applied and the service’s own ' +
          `dependencies can serve (the catalog's model did not fail to load). Each check is bounded (${READINESS_CHECK_TIMEOUT_MS} ms). Never cached.`,
        tags: ['health'],
        response: {
          200: { ...ReadinessBody, 'x-response-description': 'Ready: every check passed.', headers: noStoreHeader },
          503: {
            ...ReadinessBody,
            'x-response-description': 'Not ready: the failing checks name their reasons.',
            headers: noStoreHeader,
          },
        },
      },
    },
    async (_request, reply) => {
      noStore(reply)
      const answer = await fastify.readiness.evaluate()
      return reply.code(answer.ready ? 200 : 503).send(answer)
    },
  )
}

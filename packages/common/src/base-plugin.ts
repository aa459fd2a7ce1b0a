import path from 'node:path'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { BaseConfig } from './config.ts'
import { type DatabasePluginOptions, databasePlugin } from './database-plugin.ts'
import type { Database, PgliteSettings } from './db/index.ts'
import { createErrorHandler, createNotFoundHandler, guardJsonBodies } from './errors.ts'
import { noStoreHeader } from './openapi.ts'
import { rateLimitPlugin } from './rate-limit.ts'
import { createReadiness, readinessRoutes } from './readiness.ts'
import { addMissingSecurityHeaders, noStore } from './security-headers.ts'
import { type AnswerPolicy, createFastify, type LogOverrides } from './server.ts'
import { documentDatabaseUnavailable, type UnavailableDocOptions } from './unavailable.ts'

export interface BasePluginOptions {
  /** The service's error shape and security headers, as given to `createFastify`. */
  answers: AnswerPolicy
  database: DatabasePluginOptions
  /** Shared rate-limit counts across instances; in process without it. */
  redisUrl?: string
  /** The 503 every database-backed route answers while PostgreSQL is unreachable, and the routes that never do. */
  databaseUnavailable: UnavailableDocOptions
}

/**
 * What every service registers first: error and 404 answers in its body shape, the JSON body guard, the
 * security headers on every answer, the documented 503 while the database is down, the database and rate limits.
 */
export const basePlugin = fp(
  async function basePlugin(fastify: FastifyInstance, { answers, database, redisUrl, databaseUnavailable }: BasePluginOptions) {
    fastify.setErrorHandler(createErrorHandler(answers))
    fastify.setNotFoundHandler(createNotFoundHandler(answers.messageKey))
    guardJsonBodies(fastify)
    // Root onSend: API answers, errors and 404s get the baseline too (pages set their stricter headers first).
    fastify.addHook('onSend', async (request, reply, payload) => {
      addMissingSecurityHeaders(reply, request.url, answers.securityHeaders)
      return payload
    })
    documentDatabaseUnavailable(fastify, databaseUnavailable)
    await fastify.register(databasePlugin, database)
    fastify.decorate(
      'readiness',
      await createReadiness({ db: fastify.db, migrationsDir: database.migrationsDir, log: fastify.log }),
    )
    await fastify.register(rateLimitPlugin, { redisUrl })
  },
  { name: 'app-base', fastify: '5.x' },
)

/** What a caller may provide instead of the app opening or choosing it (tests, benches). */
export interface ServiceDeps {
  /** A database opened by the caller (tests sharing one between instances); not closed by the app. */
  db?: Database
  /** Log lines go to this stream (tests read them) instead of stdout. */
  log?: LogOverrides
}

export interface ServiceDefinition<C> {
  answers: AnswerPolicy
  /** The service's folder: its migrations are in `migrations/`. */
  root: string
  databaseUnavailable: UnavailableDocOptions
  /** The embedded database's settings where the service differs from the shared ones (`PGLITE_SETTINGS`). */
  pglite?: PgliteSettings
  /** Registers the service's own plugins and routes, after the base plugin. */
  plugins: (fastify: FastifyInstance, config: C) => Promise<void>
}

export type ServiceApp<C> = FastifyInstance & { config: C }

/**
 * A service's app: the Fastify instance with the shared options, its config decorated, the base plugin first
 * (database under DATA_DIR/pgdata unless DATABASE_URL), then the service's plugins. Registered, not yet loaded
 * (await `ready()` or `listen()`).
 */
export function buildServiceApp<C extends BaseConfig>(config: C, service: ServiceDefinition<C>, deps: ServiceDeps = {}) {
  const fastify = createFastify(config, service.answers, deps.log)
  // decorate's value type is conditional on functions, which a type parameter leaves unresolved.
  fastify.decorate('config', config as BaseConfig)
  fastify.register(
    fp(async (app: FastifyInstance) => {
      await app.register(basePlugin, {
        answers: service.answers,
        database: {
          url: config.DATABASE_URL,
          dataDir: path.join(config.DATA_DIR, 'pgdata'),
          migrationsDir: path.join(service.root, 'migrations'),
          pglite: service.pglite,
          db: deps.db,
        },
        redisUrl: config.REDIS_URL,
        databaseUnavailable: service.databaseUnavailable,
      })
      await service.plugins(app, config)
    }),
  )
  return fastify as ServiceApp<C>
}

/**
 * Liveness (answers while the process serves) and readiness, never cached, not logged at info (probes come
 * every few seconds). Registered by each service after its OpenAPI plugin, which documents only the routes
 * registered after it.
 */
export const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  await fastify.register(readinessRoutes)
  fastify.get(
    '/api/health',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness',
        tags: ['health'],
        response: {
          200: Type.Object(
            { ok: Type.Literal(true) },
            {
              'x-response-description': 'The process serves requests.',
              headers: noStoreHeader,
            },
          ),
        },
      },
    },
    async (_request, reply) => {
      noStore(reply)
      return { ok: true as const }
    },
  )
}

import path from 'node:path'
import {
  createErrorHandler,
  createFastify,
  createNotFoundHandler,
  type Database,
  databasePlugin,
  documentDatabaseUnavailable,
  type ErrorHandlerOptions,
  guardJsonBodies,
  type HttpError,
  type LogOverrides,
  rateLimitPlugin,
} from '@app/common'
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { actionRoutes } from './actions/routes.ts'
import { auditPlugin } from './audit/repository.ts'
import { authPlugin } from './auth/plugin.ts'
import { authRoutes } from './auth/routes.ts'
import { loadSessionSecret } from './auth/secret.ts'
import type { Config } from './config.ts'
import { dashboardPlugin } from './dashboard/plugin.ts'
import { dashboardRoutes } from './dashboard/routes.ts'
import { explorerRoutes } from './explorer/routes.ts'
import { healthRoutes } from './health/routes.ts'
import { historyRoutes } from './history/routes.ts'
import { openapiPlugin } from './openapi/plugin.ts'
import { rpcPlugin } from './rpc/plugin.ts'
import { DatabaseUnavailableBody } from './schemas.ts'
import { serviceRoot } from './service-root.ts'
import { settingsPlugin } from './settings/plugin.ts'
import { settingsRoutes } from './settings/routes.ts'
import { webRoutes } from './web/routes.ts'
import { securityHeaders } from './web/security.ts'

/** What the caller may provide instead of the app opening or choosing it (tests, benches). */
export interface AppDeps {
  /** A database opened by the caller (tests sharing one between instances); not closed by the app. */
  db?: Database
  /** Log lines go to this stream (tests read them) instead of stdout. */
  log?: LogOverrides
}

/** The service's error body shape: its message field and the status of a validation failure. */
export const errorShape = { messageKey: 'detail', validationStatus: 422 } as const satisfies ErrorHandlerOptions

export type App = FastifyInstance & { config: Config }

/**
 * The node dashboard, built the one way server.ts, the tests, the benches and the OpenAPI export all use:
 * registered, not yet loaded (await `ready()` or `listen()`).
 */
export function buildApp(config: Config, deps: AppDeps = {}): App {
  const fastify = createFastify(config, errorShape, deps.log)
  fastify.decorate('config', config)
  fastify.register(fp(nodeDashboard), { config, db: deps.db })
  return fastify as App
}

interface AppOptions {
  config: Config
  db?: Database
}

async function nodeDashboard(fastify: FastifyInstance, { config, db }: AppOptions) {
  const errorHandler = createErrorHandler(errorShape)
  // A body that is not JSON fails validation like any other bad body: 422 here (400 means a missing setting).
  const unparsable = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY'])
  fastify.setErrorHandler(function dashboardErrors(error: FastifyError & Partial<HttpError>, request, reply) {
    if (unparsable.has(error.code)) return reply.code(422).send({ detail: `Invalid body: ${error.message}` })
    return errorHandler.call(this, error, request, reply)
  })
  fastify.setNotFoundHandler(createNotFoundHandler(errorShape.messageKey))
  guardJsonBodies(fastify)
  // Every API route but health reads the session or settings from PostgreSQL: 503 while it is unreachable.
  documentDatabaseUnavailable(fastify, {
    response: DatabaseUnavailableBody,
    databaseFree: ({ url }) => !url.startsWith('/api/') || url === '/api/health',
  })
  await fastify.register(databasePlugin, {
    url: config.DATABASE_URL,
    dataDir: path.join(config.DATA_DIR, 'pgdata'),
    migrationsDir: path.join(serviceRoot, 'migrations'),
    db,
  })
  await fastify.register(rateLimitPlugin, { redisUrl: config.REDIS_URL })
  // API answers and static assets are never cached (onSend: errors and 404s included, and it wins over any route).
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/api/') || request.url.startsWith('/static/')) reply.header('Cache-Control', 'no-store')
    // JSON answers (errors included) get the shell's hardening headers too: nosniff, no framing, a deny-all CSP.
    for (const [name, value] of Object.entries(securityHeaders)) if (!reply.hasHeader(name)) reply.header(name, value)
    return payload
  })
  // Signs session cookies and derives the key that encrypts stored node secrets.
  const secret = await loadSessionSecret(config.SESSION_SECRET, config.DATA_DIR)
  // Shared services first (their onRoute hooks must see every route): auth, settings, rpc, audit.
  await fastify.register(openapiPlugin)
  await fastify.register(authPlugin, { config, secret })
  await fastify.register(settingsPlugin, { secret })
  await fastify.register(rpcPlugin, { timeoutMs: config.RPC_TIMEOUT_MS })
  await fastify.register(auditPlugin)
  await fastify.register(dashboardPlugin, { config })
  await fastify.register(healthRoutes)
  await fastify.register(authRoutes, { config })
  await fastify.register(settingsRoutes)
  await fastify.register(dashboardRoutes)
  await fastify.register(historyRoutes)
  await fastify.register(explorerRoutes, { config })
  await fastify.register(actionRoutes, { config })
  // The single-page app: GET / and /static/* (builds web/ into dist/web when missing or stale).
  await fastify.register(webRoutes)
}

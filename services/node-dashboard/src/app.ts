import {
  type AnswerPolicy,
  buildServiceApp,
  healthRoutes,
  type ServiceApp,
  type ServiceDefinition,
  type ServiceDeps,
} from '@app/common'
import compress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import { actionsPlugin } from './actions/plugin.ts'
import { actionRoutes } from './actions/routes.ts'
import { alertsPlugin } from './alerts/plugin.ts'
import { alertRoutes } from './alerts/routes.ts'
import { auditPlugin } from './audit/plugin.ts'
import { authPlugin } from './auth/plugin.ts'
import { authRoutes } from './auth/routes.ts'
import { loadSessionSecret } from './auth/secret.ts'
import { blocksPlugin } from './blocks/plugin.ts'
import { blocksRoutes } from './blocks/routes.ts'
import type { Config } from './config.ts'
import { dashboardPlugin } from './dashboard/plugin.ts'
import { dashboardRoutes } from './dashboard/routes.ts'
import { demoNodePlugin } from './demo/plugin.ts'
import { explorerRoutes } from './explorer/routes.ts'
import { historyPlugin } from './history/plugin.ts'
import { historyRoutes } from './history/routes.ts'
import { leasesPlugin } from './leases/plugin.ts'
import { lifecycleRoutes } from './lifecycle/routes.ts'
import { nodeConfigPlugin } from './node-config/repository.ts'
import { nodeConfigRoutes } from './node-config/routes.ts'
import { docsRoutes, openapiPlugin } from './openapi/plugin.ts'
import { peerRoutes } from './peers/routes.ts'
import { prometheusPlugin } from './prometheus/plugin.ts'
import { prometheusRoutes } from './prometheus/routes.ts'
import { rpcPlugin } from './rpc/plugin.ts'
import { DatabaseUnavailableBody } from './schemas.ts'
import { serviceRoot } from './service-root.ts'
import { settingsPlugin } from './settings/plugin.ts'
import { settingsRoutes } from './settings/routes.ts'
import { webRoutes } from './web/routes.ts'
import { securityHeaders } from './web/security.ts'

export type AppDeps = ServiceDeps

/**
 * Errors are `{detail}` with 422 for a validation failure, an unparsable body included (400 means a missing
 * setting). Every answer gets the shell's hardening headers; API answers and static assets are never cached.
 */
export const answers: AnswerPolicy = {
  messageKey: 'detail',
  validationStatus: 422,
  unparsableBodyIsInvalid: true,
  securityHeaders: { baseline: securityHeaders, noStorePrefixes: ['/api/', '/static/'] },
}

export type App = ServiceApp<Config>

const service: ServiceDefinition<Config> = {
  answers,
  root: serviceRoot,
  // Every API route but health reads the session or settings from PostgreSQL: 503 while it is unreachable
  // (readiness answers its own 503 naming the failing checks).
  databaseUnavailable: {
    response: DatabaseUnavailableBody,
    databaseFree: ({ url }) => !url.startsWith('/api/') || url === '/api/health' || url === '/api/ready',
  },
  // An 8 MB buffer pool: the pool is resident for the process's life, and history reads (a few MB of rollup rows)
  // took the same CPU with 8 as with 16 MB over a million samples; the operating system's page cache is behind it.
  pglite: { shared_buffers: '8MB' },
  plugins: nodeDashboard,
}

/** The node dashboard, built the one way server.ts, the tests, the benches and the OpenAPI export all use. */
export function buildApp(config: Config, deps: AppDeps = {}): App {
  return buildServiceApp(config, service, deps)
}

/** The dashboard's own plugins and routes, after the base plugin. */
async function nodeDashboard(fastify: FastifyInstance, config: Config) {
  // Signs session cookies and derives the key that encrypts stored node secrets.
  const secret = await loadSessionSecret(config.SESSION_SECRET, config.DATA_DIR)
  // History answers reach megabytes: JSON, documents and assets go out br/gzip-compressed when the client accepts it.
  await fastify.register(compress, { global: true, encodings: ['br', 'gzip', 'deflate'] })
  // Shared services first (their onRoute hooks must see every route): auth, settings, metrics, rpc, audit.
  await fastify.register(openapiPlugin)
  await fastify.register(leasesPlugin)
  await fastify.register(authPlugin, { config, secret })
  await fastify.register(settingsPlugin, { secret })
  await fastify.register(demoNodePlugin, { config })
  await fastify.register(prometheusPlugin)
  await fastify.register(rpcPlugin, { timeoutMs: config.RPC_TIMEOUT_MS, sshTimeoutMs: config.SSH_TIMEOUT_MS })
  await fastify.register(auditPlugin)
  await fastify.register(actionsPlugin)
  await fastify.register(historyPlugin)
  await fastify.register(nodeConfigPlugin)
  await fastify.register(dashboardPlugin, { config })
  await fastify.register(blocksPlugin, { config })
  await fastify.register(alertsPlugin, { config, secret })
  await fastify.register(healthRoutes)
  await fastify.register(authRoutes, { config })
  await fastify.register(settingsRoutes, { config })
  await fastify.register(dashboardRoutes)
  await fastify.register(historyRoutes)
  await fastify.register(blocksRoutes)
  await fastify.register(explorerRoutes, { config })
  await fastify.register(actionRoutes, { config })
  await fastify.register(lifecycleRoutes, { config })
  await fastify.register(peerRoutes)
  await fastify.register(alertRoutes)
  await fastify.register(nodeConfigRoutes, { config })
  await fastify.register(prometheusRoutes, { config })
  await fastify.register(docsRoutes)
  // The single-page app: GET / and /static/* (builds web/ into dist/web when missing or stale).
  await fastify.register(webRoutes)
}

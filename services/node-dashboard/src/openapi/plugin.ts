import { type HeaderDocs, openapiTransform } from '@app/common'
import fastifySwagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SESSION_COOKIE } from '../auth/plugin.ts'

export const openapiInfo = {
  title: 'Node dashboard API',
  version: '1.0.0',
  description:
    'Monitoring and control of one Bitcoin-Core-family node. Errors answer {"detail": "..."}; ' +
    'operations with the sessionCookie security need a logged-in session (POST /api/auth/login; 401 otherwise). ' +
    'Every answer is sent with Cache-Control: no-store. Addresses are relative to the server root.',
}

/** The dashboard sends Cache-Control: no-store on every answer (the security-header baseline). */
const everyAnswer: HeaderDocs = { 'Cache-Control': { type: 'string', description: 'no-store' } }

/** Collects every route's TypeBox schemas (register before the routes) and serves GET /openapi.json. */
export const openapiPlugin = fp(
  async function openapiPlugin(fastify: FastifyInstance) {
    await fastify.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: openapiInfo,
        servers: [{ url: '/' }],
        tags: [
          { name: 'auth', description: 'Log in and out; the current session' },
          { name: 'settings', description: 'Node connection and control settings' },
          { name: 'dashboard', description: 'Node state and metric history' },
          { name: 'rpc', description: 'The JSON-RPC explorer' },
          { name: 'actions', description: 'Stop, start and restart the node' },
          { name: 'peers', description: "The node's peers and bans: list, disconnect, ban, unban" },
          { name: 'health', description: 'Liveness' },
          { name: 'metrics', description: 'Prometheus metrics' },
          { name: 'meta', description: 'This API description' },
        ],
        components: {
          securitySchemes: {
            sessionCookie: {
              type: 'apiKey',
              in: 'cookie',
              name: SESSION_COOKIE,
              description: 'The session cookie POST /api/auth/login sets (HttpOnly, SameSite=Lax, 8 hours).',
            },
            metricsToken: {
              type: 'http',
              scheme: 'bearer',
              description: 'The METRICS_TOKEN setting, for a Prometheus scrape job (GET /metrics only).',
            },
          },
        },
      },
      // The single-page app, its assets and /docs are not API: routes without tags stay out.
      hideUntagged: true,
      // Auth = Yes routes name the session; the others say security: [].
      transform: openapiTransform({
        security: (route) => (route.config?.auth === true ? [{ sessionCookie: [] }] : []),
        everyResponse: () => everyAnswer,
      }),
    })
    fastify.get(
      '/openapi.json',
      {
        schema: {
          operationId: 'getOpenapiDocument',
          summary: 'This OpenAPI 3.1 document',
          tags: ['meta'],
          response: {
            200: Type.Object({}, { additionalProperties: true, 'x-response-description': 'The OpenAPI 3.1 description.' }),
          },
        },
      },
      async () => fastify.swagger(),
    )
  },
  { name: 'dashboard-openapi' },
)

/**
 * /docs: Swagger UI over this document, from the package's own assets, behind the session like the API
 * (401 {"detail"} without one). Register after the auth plugin.
 */
export async function docsRoutes(fastify: FastifyInstance) {
  fastify.addHook('onRequest', fastify.requireAuth)
  await fastify.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { deepLinking: true },
  })
}

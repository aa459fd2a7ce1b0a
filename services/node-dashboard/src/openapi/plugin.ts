import fastifySwagger from '@fastify/swagger'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SESSION_COOKIE } from '../auth/plugin.ts'

/** Collects every route's TypeBox schemas (register before the routes) and serves GET /openapi.json. */
export const openapiPlugin = fp(
  async function openapiPlugin(fastify: FastifyInstance) {
    await fastify.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Node dashboard API',
          version: '1.0.0',
          description:
            'Monitoring and control of one Bitcoin-Core-family node. Errors answer {"detail": "..."}; ' +
            'routes with the sessionCookie security need a logged-in session (401 otherwise).',
        },
        components: { securitySchemes: { sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE } } },
      },
      // Mark the Auth = Yes routes in the document.
      transform: ({ schema, url, route }) => {
        const transformed = { ...(schema as Record<string, unknown>) }
        if (route.config?.auth === true) transformed.security = [{ sessionCookie: [] }]
        return { schema: transformed as typeof schema, url }
      },
    })
    fastify.get(
      '/openapi.json',
      {
        schema: {
          summary: 'This OpenAPI 3.1 document',
          tags: ['meta'],
          response: { 200: Type.Object({}, { additionalProperties: true }) },
        },
      },
      async () => fastify.swagger(),
    )
  },
  { name: 'dashboard-openapi' },
)

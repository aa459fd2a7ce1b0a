import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type DatabasePluginOptions, databasePlugin } from './database-plugin.ts'
import { createErrorHandler, createNotFoundHandler, guardJsonBodies } from './errors.ts'
import { rateLimitPlugin } from './rate-limit.ts'
import { addMissingSecurityHeaders, apiSecurityPolicy, noStore } from './security-headers.ts'
import type { AnswerPolicy } from './server.ts'
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
    const securityHeaders = answers.securityHeaders ?? apiSecurityPolicy
    // Root onSend: API answers, errors and 404s get the baseline too (pages set their stricter headers first).
    fastify.addHook('onSend', async (request, reply, payload) => {
      addMissingSecurityHeaders(reply, request.url, securityHeaders)
      return payload
    })
    documentDatabaseUnavailable(fastify, databaseUnavailable)
    await fastify.register(databasePlugin, database)
    await fastify.register(rateLimitPlugin, { redisUrl })
  },
  { name: 'app-base', fastify: '5.x' },
)

/**
 * Liveness: answers while the process serves, never cached. Registered by each service after its OpenAPI
 * plugin, which documents only the routes registered after it.
 */
export const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get(
    '/api/health',
    {
      schema: {
        summary: 'Liveness',
        tags: ['health'],
        response: { 200: Type.Object({ ok: Type.Literal(true) }) },
      },
    },
    async (_request, reply) => {
      noStore(reply)
      return { ok: true as const }
    },
  )
}

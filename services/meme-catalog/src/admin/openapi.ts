import { noStoreHeader, openapiTransform, type RouteRateLimit } from '@app/common'
import swagger from '@fastify/swagger'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { openapiInfo } from '../openapi/plugin.ts'
import { commonAdminResponses } from './schemas.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The admin API's own OpenAPI document (routes tagged 'admin' registered in the admin scope). */
    adminSwagger: FastifyInstance['swagger']
  }
}

export const ADMIN_TAG = 'admin'

const adminTransform = openapiTransform({ security: () => [{ adminToken: [] }], everyResponse: () => noStoreHeader })

/** Keeps only the component schemas the document references (the shared ones arrive all together). */
export function pruneComponents(document: Record<string, any>): Record<string, any> {
  const schemas: Record<string, unknown> = document.components?.schemas ?? {}
  const used = new Set<string>()
  const pending = [JSON.stringify(document.paths)]
  while (pending.length > 0) {
    for (const [, name] of pending.pop()!.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (used.has(name) || !(name in schemas)) continue
      used.add(name)
      pending.push(JSON.stringify(schemas[name]))
    }
  }
  return {
    ...document,
    components: { ...document.components, schemas: Object.fromEntries([...used].sort().map((n) => [n, schemas[n]])) },
  }
}

/**
 * A second @fastify/swagger under its own decorator, registered inside the admin scope: its onRoute
 * hook sees only the admin routes registered after it, so the document holds exactly those.
 */
export async function registerAdminSwagger(fastify: FastifyInstance) {
  await fastify.register(swagger, {
    decorator: 'adminSwagger',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Meme Catalog admin API',
        version: openapiInfo.version,
        description: 'Review and edit memes and the tag catalog. Every call needs Authorization: Bearer <ADMIN_TOKEN>.',
      },
      servers: [{ url: '/' }],
      tags: [{ name: ADMIN_TAG, description: 'Admin review, editing and tag catalog' }],
      components: {
        securitySchemes: {
          adminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN the service was started with.' },
        },
      },
      security: [{ adminToken: [] }],
    },
    hideUntagged: true,
    // Only admin-tagged routes, even if something else gets registered in this scope; each names the token and
    // documents the no-store every admin answer carries.
    transform: (input) =>
      (input.schema?.tags as string[] | undefined)?.includes(ADMIN_TAG)
        ? adminTransform(input as Parameters<typeof adminTransform>[0])
        : { schema: { ...input.schema, hide: true }, url: input.url },
    transformObject: (document) => pruneComponents((document as { openapiObject: Record<string, any> }).openapiObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
}

export async function adminOpenapiRoute(fastify: FastifyInstance, { rateLimit }: { rateLimit: RouteRateLimit }) {
  let cached: string | undefined
  fastify.get(
    '/admin/openapi.json',
    {
      config: { rateLimit },
      schema: {
        operationId: 'adminGetOpenapiDocument',
        summary: 'The admin API description',
        description: 'OpenAPI 3.1.0 document of the admin routes only (the public /openapi.json leaves them out).',
        tags: [ADMIN_TAG],
        response: {
          200: Type.Object({}, { additionalProperties: true, 'x-response-description': 'The OpenAPI 3.1 document.' }),
          ...commonAdminResponses,
        },
      },
    },
    async (_request, reply) => {
      // Routes cannot change after start-up: serialize once.
      cached ??= JSON.stringify(fastify.adminSwagger())
      return reply.header('Cache-Control', 'no-store').type('application/json; charset=utf-8').send(cached)
    },
  )
}

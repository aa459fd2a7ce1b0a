import { openapiTransform } from '@app/common'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { giphySchemas } from '../giphy/schemas.ts'

/** Routes carrying this tag (the admin API) are left out of the public document. */
export const ADMIN_TAG = 'admin'

const publicTransform = openapiTransform({ security: () => [] })

export const openapiInfo = {
  title: 'Meme Catalog',
  version: '1.1.0',
  description:
    'Lists, searches and serves approved memes, accepts PNG/JPEG uploads (moderated, normalized to WebP, per-IP quotas), ' +
    'and publishes the tag catalog. Search is lexical fuzzy matching (not semantic). Reads are rate-limited per IP; ' +
    'the budget comes in the RateLimit-* headers and the rateLimit body field. Addresses are relative to the server root.',
}

/**
 * @fastify/swagger over every route registered after it (register it before the routes), with
 * shared schemas kept under their $id in components/schemas; GET /openapi.json serves it and
 * /docs is Swagger UI (assets from the package, nothing from a CDN).
 */
export const openapiPlugin = fp(
  async function openapiPlugin(fastify: FastifyInstance) {
    await fastify.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: openapiInfo,
        servers: [{ url: '/' }],
        tags: [
          { name: 'memes', description: 'List, search, read and upload memes' },
          { name: 'media', description: 'Normalized WebP images' },
          { name: 'tags', description: 'The public tag catalog' },
          { name: 'discovery', description: 'API description and instructions for language-model clients' },
          { name: 'health', description: 'Liveness and readiness' },
        ],
      },
      hiddenTag: ADMIN_TAG,
      // No public operation needs credentials. The GIPHY-compatible API (/v1) has a document of its own.
      transform: (input) =>
        input.url.startsWith('/v1/')
          ? { schema: { ...input.schema, hide: true }, url: input.url }
          : publicTransform(input as Parameters<typeof publicTransform>[0]),
      hideUntagged: true,
      // The /v1 scope's schemas are seen here too; they belong to /v1/openapi.json.
      transformObject: (document) => withoutGiphySchemas((document as { openapiObject: Record<string, any> }).openapiObject),
      refResolver: {
        // components/schemas/Meme rather than def-0.
        buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
      },
    })
    await fastify.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } })

    let cached: string | undefined
    fastify.get(
      '/openapi.json',
      {
        schema: {
          operationId: 'getOpenapiDocument',
          summary: 'API description document',
          description: 'This OpenAPI 3.1.0 document.',
          tags: ['discovery'],
          response: {
            200: { type: 'object', additionalProperties: true, 'x-response-description': 'The OpenAPI 3.1 description.' },
          },
        },
      },
      async (_request, reply) => {
        // Routes cannot change after start-up: serialize once.
        cached ??= JSON.stringify(fastify.swagger())
        return reply.type('application/json; charset=utf-8').send(cached)
      },
    )
  },
  { name: 'meme-openapi' },
)

const giphyNames = new Set(giphySchemas.map((schema) => schema.$id))

function withoutGiphySchemas(document: Record<string, any>): Record<string, any> {
  const schemas: Record<string, unknown> = document.components?.schemas ?? {}
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => !giphyNames.has(name)))
  return { ...document, components: { ...document.components, schemas: kept } }
}

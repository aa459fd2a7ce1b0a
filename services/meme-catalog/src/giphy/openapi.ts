import { openapiTransform } from '@app/common'
import swagger from '@fastify/swagger'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { pruneComponents } from '../admin/openapi.ts'
import { openapiInfo } from '../openapi/plugin.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The GIPHY-compatible API's own OpenAPI document (the routes of the /v1 scope). */
    giphySwagger: FastifyInstance['swagger']
  }
}

export const GIPHY_TAG = 'gifs'

const transform = openapiTransform({ security: () => [] })

/**
 * A @fastify/swagger of its own inside the /v1 scope (like the admin API's): its onRoute hook sees only the routes
 * registered after it there, so /v1/openapi.json describes exactly the GIPHY-compatible API.
 */
export async function registerGiphySwagger(fastify: FastifyInstance) {
  await fastify.register(swagger, {
    decorator: 'giphySwagger',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Meme Catalog GIPHY-compatible API',
        version: openapiInfo.version,
        description:
          'The read side of GIPHY’s API (v1) over the approved memes, so a GIPHY client works by changing its base URL ' +
          'to <server>/v1/. GIPHY’s envelope (data, pagination, meta) and error bodies; images are WebP (no mp4). ' +
          'api_key is required only when the server lists keys (GIPHY_API_KEYS); reads are limited per address and per key.',
      },
      servers: [{ url: '/' }],
      tags: [
        { name: GIPHY_TAG, description: 'Search, trending, random, by id, term suggestions' },
        { name: 'discovery', description: 'This document' },
      ],
    },
    hideUntagged: true,
    transform: (input) => transform(input as Parameters<typeof transform>[0]),
    transformObject: (document) => pruneComponents((document as { openapiObject: Record<string, any> }).openapiObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
}

export async function giphyOpenapiRoute(fastify: FastifyInstance) {
  let cached: string | undefined
  fastify.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'giphyGetOpenapiDocument',
        summary: 'The GIPHY-compatible API description',
        description: 'OpenAPI 3.1.0 document of the /v1 routes only (the catalog’s own API is in /openapi.json).',
        tags: ['discovery'],
        response: {
          200: Type.Object({}, { additionalProperties: true, 'x-response-description': 'The OpenAPI 3.1 document.' }),
        },
      },
    },
    async (_request, reply) => {
      // Routes cannot change after start-up: serialize once.
      cached ??= JSON.stringify(fastify.giphySwagger())
      return reply.type('application/json; charset=utf-8').send(cached)
    },
  )
}

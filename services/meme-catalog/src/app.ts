import {
  type AnswerPolicy,
  apiSecurityPolicy,
  buildServiceApp,
  healthRoutes,
  type ServiceApp,
  type ServiceDefinition,
  type ServiceDeps,
} from '@app/common'
import compress from '@fastify/compress'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import { adminPlugin } from './admin/plugin.ts'
import { captionsPlugin, captionWordsRepositoryPlugin } from './captions/plugin.ts'
import type { Config } from './config.ts'
import { demoEnabled, demoPlugin } from './demo/seed.ts'
import { giphyPlugin } from './giphy/plugin.ts'
import { decodeSlotsPlugin } from './images/plugin.ts'
import { mediaFastPath } from './media/fast-path.ts'
import { renditionRoutesPlugin } from './media/rendition-routes.ts'
import { mediaRoutes } from './media/routes.ts'
import { corsOptions, parseOrigins } from './memes/cors.ts'
import { memesRepositoryPlugin, memeUseCasesPlugin } from './memes/plugin.ts'
import { memesRoutes } from './memes/routes.ts'
import { memeSchemas } from './memes/schemas.ts'
import { suggestRoutes } from './memes/suggest-routes.ts'
import { trendingRoutes } from './memes/trending-routes.ts'
import { moderationPlugin } from './moderation/plugin.ts'
import { openapiPlugin } from './openapi/plugin.ts'
import { databaseUnavailableResponse, sharedSchemasPlugin } from './schemas.ts'
import { readModelPlugin } from './search/plugin.ts'
import { serviceRoot } from './service-root.ts'
import { similarRoutes } from './similar/routes.ts'
import { similarSchemas } from './similar/schemas.ts'
import { skillRoutes } from './skill/routes.ts'
import { tagsRepositoryPlugin, tagUseCasesPlugin } from './tags/plugin.ts'
import { tagsRoutes } from './tags/routes.ts'
import { uploadRoutes } from './uploads/routes.ts'
import { webRoutes } from './web/routes.ts'

export type AppDeps = ServiceDeps

/** Errors are `{error}` with 400 for a validation failure; every answer a page does not cover carries the API baseline. */
const answers: AnswerPolicy = { messageKey: 'error', validationStatus: 400, securityHeaders: apiSecurityPolicy }

export type App = ServiceApp<Config>

const service: ServiceDefinition<Config> = {
  answers,
  root: serviceRoot,
  // The API and media answer 503 while PostgreSQL is unreachable; health, documents and pages do not (readiness
  // answers its own 503 naming the failing checks).
  databaseUnavailable: {
    response: databaseUnavailableResponse,
    databaseFree: ({ url }) => !/^\/(api|media)\//.test(url) || url === '/api/health' || url === '/api/ready',
  },
  plugins: memeCatalog,
}

/** The meme catalog, built the one way server.ts, the tests, the benches and the OpenAPI export all use. */
export function buildApp(config: Config, deps: AppDeps = {}): App {
  return buildServiceApp(config, service, deps)
}

/** The catalog's own plugins and routes, after the base plugin. */
async function memeCatalog(fastify: FastifyInstance, config: Config) {
  // OpenAPI first: it documents the routes registered after it.
  await fastify.register(sharedSchemasPlugin, { components: [...memeSchemas, ...similarSchemas] })
  const window = config.RATE_LIMIT_WINDOW_SECONDS
  const mediaLimit = { bucket: 'media', max: config.MEDIA_RATE_LIMIT, windowSeconds: window }
  await fastify.register(cors, corsOptions(parseOrigins(config.CORS_UPLOAD_ORIGINS)))
  await fastify.register(compress, { global: true, encodings: ['br', 'gzip', 'deflate'] })
  await fastify.register(openapiPlugin)
  await fastify.register(memesRepositoryPlugin)
  await fastify.register(tagsRepositoryPlugin)
  await fastify.register(captionWordsRepositoryPlugin)
  await fastify.register(readModelPlugin)
  await fastify.register(memeUseCasesPlugin)
  await fastify.register(tagUseCasesPlugin)
  const readLimit = { bucket: 'read', max: config.READ_RATE_LIMIT, windowSeconds: window }
  await fastify.register(memesRoutes, { readLimit })
  await fastify.register(suggestRoutes, { readLimit })
  await fastify.register(trendingRoutes, { readLimit })
  await fastify.register(tagsRoutes, { readLimit })
  await fastify.register(mediaRoutes, {
    mediaLimit,
    counterFlushMs: config.MEDIA_COUNTER_FLUSH_MS,
    cacheMegabytes: config.MEDIA_CACHE_MB,
  })
  await fastify.register(renditionRoutesPlugin, { mediaLimit })
  await fastify.register(mediaFastPath, { mediaLimit })
  await fastify.register(giphyPlugin, { config, prefix: '/v1' })
  await fastify.register(skillRoutes, { config })
  await fastify.register(demoPlugin, { enabled: demoEnabled(config) })
  await fastify.register(healthRoutes)
  await fastify.register(webRoutes)
  await fastify.register(captionsPlugin, { config })
  await fastify.register(adminPlugin, { config })
  await fastify.register(moderationPlugin, { config })
  await fastify.register(decodeSlotsPlugin, { queue: config.UPLOAD_DECODE_QUEUE })
  await fastify.register(uploadRoutes, { config })
  await fastify.register(similarRoutes, { config })
}

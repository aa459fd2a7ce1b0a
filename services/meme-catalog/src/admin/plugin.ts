import { repositoryPlugin } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { adminAliasesRoutes } from './aliases-routes.ts'
import { createAdminAuth } from './auth.ts'
import { adminMemesRoutes } from './memes-routes.ts'
import { adminOpenapiRoute, registerAdminSwagger } from './openapi.ts'
import { type AdminRepository, createAdminRepository } from './repository.ts'
import { adminReviewRoutes } from './review-routes.ts'
import { adminTagsRoutes } from './tags-routes.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Admin SQL over memes, tags and the audit log (admin scope only). */
    adminRepository: AdminRepository
  }
}

export const adminRepositoryPlugin = repositoryPlugin('meme-admin-repository', 'adminRepository', createAdminRepository)

/**
 * The admin API (encapsulated: its hooks, decorators and OpenAPI document stay inside). Without
 * ADMIN_TOKEN nothing is registered, so every admin path answers 404 like any unknown route.
 */
async function admin(fastify: FastifyInstance, { config }: { config: Config }) {
  if (!config.ADMIN_TOKEN) {
    fastify.log.info('ADMIN_TOKEN is not set: the admin API is disabled')
    return
  }
  const auth = createAdminAuth(config.ADMIN_TOKEN)
  fastify.decorateRequest('adminActor', null)
  fastify.decorate('adminRepository', createAdminRepository(fastify.db))
  await registerAdminSwagger(fastify)
  // Appended after the rate-limit hook (added by the root's onRoute, which runs first), so failed
  // logins are counted and a spent budget answers 429 before the token is even looked at.
  fastify.addHook('onRoute', (route) => {
    const existing = route.onRequest
    const hooks = existing ? (Array.isArray(existing) ? existing : [existing]) : []
    route.onRequest = [...hooks, auth.hook]
  })
  const rateLimit = { bucket: 'admin', max: config.ADMIN_RATE_LIMIT, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS }
  await fastify.register(adminMemesRoutes, { rateLimit })
  await fastify.register(adminReviewRoutes, { rateLimit })
  await fastify.register(adminTagsRoutes, { rateLimit })
  await fastify.register(adminAliasesRoutes, { rateLimit })
  await fastify.register(adminOpenapiRoute, { rateLimit })
}

export const adminPlugin = fp(admin, {
  name: 'meme-admin',
  encapsulate: true,
  dependencies: ['app-database', 'app-rate-limit', 'meme-use-cases', 'meme-tag-use-cases', 'meme-read-model'],
})

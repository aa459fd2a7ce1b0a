import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createSettingsCache, SETTINGS_CHANNEL, type SettingsCache } from './cache.ts'
import { secretBox } from './crypto.ts'
import { createNodeSettingsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    settingsCache: SettingsCache
  }
}

/** Decorates `fastify.settingsCache`, the node settings (see repository.ts); secrets are encrypted with a key from the session secret. */
export const settingsPlugin = fp(
  async function settingsPlugin(fastify: FastifyInstance, { secret }: { secret: string }) {
    const settings = createSettingsCache(createNodeSettingsRepository(fastify.db, secretBox(secret), fastify.log), fastify.db)
    const unlisten = await fastify.db.listen(SETTINGS_CHANNEL, settings.invalidate, { onReconnect: settings.invalidate })
    fastify.addHook('onClose', async () => {
      await unlisten().catch(() => {})
    })
    fastify.decorate('settingsCache', settings)
  },
  { name: 'dashboard-settings', dependencies: ['app-database'] },
)

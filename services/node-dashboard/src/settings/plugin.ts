import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { cachedSettings, SETTINGS_CHANNEL } from './cache.ts'
import { secretBox } from './crypto.ts'
import { type NodeSettingsRepository, nodeSettingsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    nodeSettings: NodeSettingsRepository
  }
}

/** Decorates `fastify.nodeSettings` (see repository.ts); secrets are encrypted with a key from the session secret. */
export const settingsPlugin = fp(
  async function settingsPlugin(fastify: FastifyInstance, { secret }: { secret: string }) {
    const settings = cachedSettings(nodeSettingsRepository(fastify.db, secretBox(secret), fastify.log), fastify.db)
    const unlisten = await fastify.db.listen(SETTINGS_CHANNEL, settings.invalidate, { onReconnect: settings.invalidate })
    fastify.addHook('onClose', async () => {
      await unlisten().catch(() => {})
    })
    fastify.decorate('nodeSettings', settings)
  },
  { name: 'dashboard-settings', dependencies: ['app-database'] },
)

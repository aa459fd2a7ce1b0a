import type { Database } from '@app/common'
import type { NodeSettings, NodeSettingsRepository } from './repository.ts'

export const SETTINGS_CHANNEL = 'node_settings_changed'

/**
 * Keeps the decrypted settings in memory (every RPC call and sampler tick reads them). A change made
 * here clears the copy at once; other instances learn of it by NOTIFY, and the TTL bounds staleness
 * should a notification be missed.
 */
export function createSettingsCache(repo: NodeSettingsRepository, db: Database, ttlMs = 10_000) {
  let cached: { at: number; value: Promise<NodeSettings> } | null = null
  const invalidate = () => {
    cached = null
  }
  const changed = async () => {
    invalidate()
    await db.notify(SETTINGS_CHANNEL, '')
  }
  return {
    invalidate,
    async get(): Promise<NodeSettings> {
      if (!cached || Date.now() - cached.at > ttlMs) {
        const value = repo.get()
        cached = { at: Date.now(), value }
        // A failed read is not cached.
        value.catch(() => {
          if (cached?.value === value) cached = null
        })
      }
      return { ...(await cached.value) }
    },
    async update(partial: Partial<NodeSettings>): Promise<NodeSettings> {
      const result = await repo.update(partial)
      await changed()
      return result
    },
    async updateFrom(decide: (current: NodeSettings) => Partial<NodeSettings>): Promise<NodeSettings> {
      const result = await repo.updateFrom(decide)
      await changed()
      return result
    },
    async recordHostKey(fingerprint: string): Promise<boolean> {
      const stored = await repo.recordHostKey(fingerprint)
      if (stored) await changed()
      return stored
    },
  }
}

export type SettingsCache = ReturnType<typeof createSettingsCache>

import type { Database } from '@app/common'
import type { NodeSettings, NodeSettingsRepository } from './repository.ts'

export const SETTINGS_CHANNEL = 'node_settings_changed'

/** The settings to use instead of the stored ones (the demo node's), or null to use the stored ones. */
export type SettingsStandIn = (stored: NodeSettings) => NodeSettings | null

/**
 * Keeps the decrypted settings in memory (every RPC call and sampler tick reads them). A change made
 * here clears the copy at once; other instances learn of it by NOTIFY, and the TTL bounds staleness
 * should a notification be missed. `get()` answers the settings in effect (a stand-in's while it
 * gives some); `stored()` always the persisted ones.
 */
export function createSettingsCache(repo: NodeSettingsRepository, db: Database, ttlMs = 10_000) {
  let cached: { at: number; value: Promise<NodeSettings> } | null = null
  let standIn: SettingsStandIn | null = null
  const listeners: (() => Promise<void>)[] = []
  const notifyListeners = () => Promise.all(listeners.map((listener) => listener())).then(() => {})
  const invalidate = () => {
    cached = null
    void notifyListeners()
  }
  // The local change: listeners have acted (the demo node is off) before the saving request answers.
  const changed = async () => {
    cached = null
    await notifyListeners()
    await db.notify(SETTINGS_CHANNEL, '')
  }
  async function stored(): Promise<NodeSettings> {
    if (!cached || Date.now() - cached.at > ttlMs) {
      const value = repo.get()
      cached = { at: Date.now(), value }
      // A failed read is not cached.
      value.catch(() => {
        if (cached?.value === value) cached = null
      })
    }
    return { ...(await cached.value) }
  }
  return {
    invalidate,
    stored,
    async get(): Promise<NodeSettings> {
      const settings = await stored()
      return standIn?.(settings) ?? settings
    },
    setStandIn(fn: SettingsStandIn | null) {
      standIn = fn
    },
    /** Called after every change of the stored settings, here or (by NOTIFY) on another instance; must not throw. */
    onChange(listener: () => Promise<void>) {
      listeners.push(listener)
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

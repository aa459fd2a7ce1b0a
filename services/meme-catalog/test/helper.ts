import { type Database, loadConfig } from '@app/common'
import { createTestDatabase } from '@app/testing'
import type { FastifyInstance } from 'fastify'
import { type App, buildApp } from '../src/app.ts'
import { configSchema } from '../src/config.ts'

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface BuildOptions {
  /** Environment overrides (strings, as a user would set them). */
  env?: Record<string, string>
  /** Share an open database with another instance. */
  db?: Database
  /** Share the data folder / database URL of another instance. */
  shareWith?: FastifyInstance
}

/** Starts the catalog on a fresh database and closes both when the test ends. */
export async function build(t: Teardown, options: BuildOptions = {}): Promise<App> {
  const shared = options.shareWith as App | undefined
  const database = shared ? undefined : await createTestDatabase()
  const config = loadConfig(configSchema, {
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    LOG_FORMAT: 'json',
    DEMO_MEMES: 'false',
    ...(shared
      ? { DATA_DIR: shared.config.DATA_DIR, ...(shared.config.DATABASE_URL ? { DATABASE_URL: shared.config.DATABASE_URL } : {}) }
      : { DATA_DIR: database!.dataDir, ...(database!.url ? { DATABASE_URL: database!.url } : {}) }),
    ...options.env,
  })
  const fastify = buildApp(config, { db: options.db ?? (shared && !config.DATABASE_URL ? shared.db : undefined) })
  await fastify.ready()
  t.teardown(async () => {
    await fastify.close()
    await database?.cleanup()
  })
  return fastify
}

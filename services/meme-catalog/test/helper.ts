import { type Database, fastifyOptions, loadConfig } from '@app/common'
import { createTestDatabase } from '@app/common/testing'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import app from '../src/app.ts'
import { type Config, configSchema } from '../src/config.ts'

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
export async function build(t: Teardown, options: BuildOptions = {}): Promise<FastifyInstance & { config: Config }> {
  const shared = options.shareWith as (FastifyInstance & { config: Config }) | undefined
  const database = shared ? undefined : await createTestDatabase()
  const config = loadConfig(configSchema, {
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DEMO_MEMES: 'false',
    ...(shared
      ? { DATA_DIR: shared.config.DATA_DIR, ...(shared.config.DATABASE_URL ? { DATABASE_URL: shared.config.DATABASE_URL } : {}) }
      : { DATA_DIR: database!.dataDir, ...(database!.url ? { DATABASE_URL: database!.url } : {}) }),
    ...options.env,
  })
  // A loaded 2-core CI box can take longer than the 10 s default to open PGlite and load models.
  const fastify = Fastify({
    ...fastifyOptions(config, { messageKey: 'error', validationStatus: 400, pretty: false }),
    pluginTimeout: 120_000,
  })
  fastify.decorate('config', config)
  await fastify.register(fp(app), { config, db: options.db ?? (shared && !config.DATABASE_URL ? shared.db : undefined) })
  await fastify.ready()
  t.teardown(async () => {
    await fastify.close()
    await database?.cleanup()
  })
  return fastify as unknown as FastifyInstance & { config: Config }
}

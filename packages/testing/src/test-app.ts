import type { FastifyInstance } from 'fastify'
import { createTestDatabase } from './database.ts'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** What the test builder needs of a service's app: where its data lives, and its open database. */
export type TestableApp<D> = FastifyInstance & { config: { DATA_DIR: string; DATABASE_URL?: string }; db: D }

export interface TestAppRecipe<A extends TestableApp<D>, D> {
  /** The service's own start: its config from environment strings, then its `buildApp`. */
  build(env: Record<string, string>, deps: { db?: D }): A
  /** Environment every test instance of the service starts with (before the test's own overrides). */
  env?: Record<string, string>
}

export interface TestAppOptions<D> {
  /** Environment overrides (strings, as a user would set them). */
  env?: Record<string, string>
  /** Share an open database with another instance. */
  db?: D
  /** Share the data folder / database URL of another instance. */
  shareWith?: FastifyInstance
}

/** Starts a service on a fresh test database (or another instance's) and closes both when the test ends. */
export async function buildTestApp<A extends TestableApp<D>, D>(
  t: Teardown,
  recipe: TestAppRecipe<A, D>,
  options: TestAppOptions<D> = {},
): Promise<A> {
  const shared = options.shareWith as A | undefined
  const database = shared ? undefined : await createTestDatabase()
  const location = shared
    ? { DATA_DIR: shared.config.DATA_DIR, ...(shared.config.DATABASE_URL ? { DATABASE_URL: shared.config.DATABASE_URL } : {}) }
    : { DATA_DIR: database!.dataDir, ...(database!.url ? { DATABASE_URL: database!.url } : {}) }
  const env = {
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    LOG_FORMAT: 'json',
    ...recipe.env,
    ...location,
    ...options.env,
  }
  // Two embedded instances must share one open database; PostgreSQL instances each connect.
  const sharedDb = shared && !env.DATABASE_URL ? shared.db : undefined
  const fastify = recipe.build(env, { db: options.db ?? sharedDb })
  await fastify.ready()
  t.teardown(async () => {
    await fastify.close()
    await database?.cleanup()
  })
  return fastify
}

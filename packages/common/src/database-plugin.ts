import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type Database, migrate, openDatabase, type PgliteSettings } from './db/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    db: Database
  }
}

export interface DatabasePluginOptions {
  url?: string
  dataDir: string
  migrationsDir: string
  /** The embedded database's settings where the service differs from the shared ones. */
  pglite?: PgliteSettings
  /** An already open database (tests sharing one between two app instances); not closed by the app. */
  db?: Database
}

/** Opens the service's database, applies its migrations and decorates `fastify.db`. */
export const databasePlugin = fp(
  async function databasePlugin(fastify: FastifyInstance, options: DatabasePluginOptions) {
    const { url, dataDir, pglite } = options
    const db = options.db ?? (await openDatabase({ url, dataDir, log: fastify.log, pglite }))
    if (!options.db) fastify.addHook('onClose', () => db.close())
    fastify.decorate('db', db)
    await migrate(db, options.migrationsDir, fastify.log)
    fastify.log.info({ driver: db.driver }, 'database ready')
  },
  { name: 'app-database', fastify: '5.x' },
)

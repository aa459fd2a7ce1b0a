import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Database } from './db/types.ts'

/** The one way a domain attaches its repository: `fastify[decorator] = create(fastify.db)`, as a named plugin. */
export function repositoryPlugin<K extends keyof FastifyInstance>(
  name: string,
  decorator: K,
  create: (db: Database) => FastifyInstance[K],
) {
  return fp(
    async function repository(fastify: FastifyInstance) {
      // decorate cannot relate a generic key to its value type; the signature above does.
      fastify.decorate(decorator as string, create(fastify.db) as unknown)
    },
    { name, dependencies: ['app-database'] },
  )
}

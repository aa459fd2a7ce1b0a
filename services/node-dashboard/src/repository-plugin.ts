import type { Database } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** A plugin named `name` that decorates the instance's `decorator` with a repository over the app database. */
export function repositoryPlugin<Repository>(name: string, decorator: string, create: (db: Database) => Repository) {
  return fp(
    async function registerRepository(fastify: FastifyInstance) {
      // Typed where it is used: each domain declares its decoration on FastifyInstance.
      const repository: unknown = create(fastify.db)
      fastify.decorate(decorator, repository)
    },
    { name, dependencies: ['app-database'] },
  )
}

import type { FastifyInstance, RouteOptions } from 'fastify'

export interface UnavailableDocOptions {
  /** The service's error body schema with a description (the 503 entry of each route's responses). */
  response: Record<string, unknown>
  /** Routes that never reach the database (health, documents, static files): left as they are. */
  databaseFree: (route: Pick<RouteOptions, 'url' | 'method'>) => boolean
}

/**
 * Adds the 503 that every database-backed route answers while PostgreSQL is unreachable to that
 * route's documented responses, so the OpenAPI document lists it. A route that already documents a
 * 503 of its own keeps its description. Register before the routes (an onRoute hook).
 */
export function documentDatabaseUnavailable(fastify: FastifyInstance, { response, databaseFree }: UnavailableDocOptions) {
  fastify.addHook('onRoute', (route) => {
    const schema = route.schema as { response?: Record<string, unknown>; hide?: boolean } | undefined
    if (!schema?.response || schema.hide || databaseFree(route) || schema.response[503]) return
    schema.response = { ...schema.response, 503: response }
  })
}

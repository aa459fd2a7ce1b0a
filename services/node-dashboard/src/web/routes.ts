import { readFile } from 'node:fs/promises'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ErrorBody } from '../schemas.ts'
import { webDistDir } from '../service-root.ts'
import { securityHeaders } from './security.ts'

export interface WebOptions {
  /** Folder of the Vite build (tests point it elsewhere). */
  distDir?: string
}

/** Serves the single-page app: GET / is the HTML shell, /static/* the built assets, all no-store. */
export const webRoutes: FastifyPluginAsyncTypebox<WebOptions> = async (fastify, { distDir = webDistDir }) => {
  const problem = 'The dashboard web app is not built. Run: pnpm --filter @app/node-dashboard build'
  // `pnpm build` makes dist/web; the service only reads it (Vite is a build tool, not part of the runtime).
  const shell = await readFile(path.join(distDir, 'index.html'), 'utf8').catch((error) => {
    // The API stays usable without the web app; GET / explains what to run.
    fastify.log.error({ err: error }, problem)
    return null
  })

  fastify.get(
    '/',
    {
      schema: {
        // Not part of the API: left out of the OpenAPI document.
        hide: true,
        summary: 'Dashboard HTML shell',
        description: 'The single-page app; its scripts and styles load from /static/.',
        tags: ['web'],
        response: {
          200: { description: 'HTML document', content: { 'text/html': { schema: Type.String() } } },
          503: { description: 'The web app is not built', content: { 'application/json': { schema: ErrorBody } } },
        },
      },
    },
    async (_request, reply) => {
      reply.headers(securityHeaders)
      if (shell === null) return reply.code(503).send({ detail: problem })
      return reply.type('text/html; charset=utf-8').send(shell)
    },
  )

  await fastify.register(fastifyStatic, {
    root: distDir,
    prefix: '/static/',
    // The spec wants no-store on /static/ (asset names are content-hashed anyway).
    cacheControl: false,
    etag: false,
    lastModified: false,
    index: false,
    dotfiles: 'ignore',
    decorateReply: false,
    setHeaders(reply) {
      reply.headers(securityHeaders)
    },
    schemaHide: true,
  })
  // A missing asset answers 404 through the service's not-found handler, with the same headers.
  fastify.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/static/') && !reply.hasHeader('content-security-policy')) reply.headers(securityHeaders)
  })
}

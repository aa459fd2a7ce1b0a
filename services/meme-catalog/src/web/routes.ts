import fastifyStatic from '@fastify/static'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { loadWebAssets, type Page, staticRoot } from './assets.ts'
import { applySecurityHeaders } from './security.ts'

const pageSchema = (summary: string) => ({
  // Browser pages are not part of the public API description.
  hide: true,
  summary,
  tags: ['web'],
  response: { 200: Type.String({ description: 'text/html' }), 304: Type.Null() },
})

/** Weak comparison (RFC 9110 13.1.2) against an If-None-Match list. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  const bare = (tag: string) => tag.trim().replace(/^W\//, '')
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag))
}

/** The gallery/search/upload page at / and the admin review page at /admin, with their static assets. */
export async function webRoutes(fastify: FastifyInstance) {
  const assets = await loadWebAssets()

  // Encapsulated: only the pages and their assets get the page policy, not the JSON API.
  fastify.addHook('onRequest', async (_request, reply) => {
    applySecurityHeaders(reply)
  })

  const sendPage = (page: Page) => async (request: FastifyRequest, reply: FastifyReply) => {
    // HTML names the current asset version, so it is revalidated on every visit.
    reply.header('Cache-Control', 'no-cache').header('ETag', page.etag)
    if (matchesEtag(request.headers['if-none-match'], page.etag)) return reply.code(304).send()
    return reply.type('text/html; charset=utf-8').send(page.body)
  }

  fastify.get('/', { schema: pageSchema('Gallery, search and upload page') }, sendPage(assets.pages.index))
  fastify.get('/admin', { schema: pageSchema('Admin review page') }, sendPage(assets.pages.admin))

  await fastify.register(fastifyStatic, {
    root: staticRoot,
    prefix: assets.prefix,
    decorateReply: false,
    index: false,
    list: false,
    // The URL carries the content hash, so a response never changes.
    cacheControl: true,
    maxAge: '365d',
    immutable: true,
    etag: true,
    lastModified: false,
    schemaHide: true,
  })
}

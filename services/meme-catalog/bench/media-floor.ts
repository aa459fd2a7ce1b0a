/**
 * What Node itself costs, for bench/media.ts: the files of <mediaDir> held in memory and answered at /media/<id> with
 * the app's header set (ETag, Cache-Control, CORS, rate-limit and security headers as constants) by a bare node:http
 * server or a bare Fastify route: no rate limiting, counting or hooks. The gap between these and the app is the app's
 * own work; the gap between them and nginx is Node's. Usage: node --import tsx bench/media-floor.ts <http|fastify> <mediaDir>
 */
import { readdir, readFile } from 'node:fs/promises'
import http from 'node:http'
import path from 'node:path'
import Fastify from 'fastify'

const [kind, mediaDir] = process.argv.slice(2)
const files = new Map<string, Buffer>()
for (const name of await readdir(mediaDir)) files.set(name, await readFile(path.join(mediaDir, name)))

const headers = (id: string) => ({
  vary: 'Origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, ETag, Content-Disposition',
  'ratelimit-limit': '600',
  'ratelimit-remaining': '599',
  'ratelimit-reset': '2026-01-01T00:00:00.000Z',
  etag: `"${id}"`,
  'cache-control': 'public, max-age=31536000, immutable',
  'content-type': 'image/webp',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
})

let server: http.Server
if (kind === 'http') {
  server = http.createServer((request, response) => {
    const id = (request.url ?? '').slice('/media/'.length)
    const bytes = files.get(id)
    if (!bytes) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { ...headers(id), 'content-length': bytes.length }).end(bytes)
  })
} else {
  const app = Fastify({ logger: false })
  app.get<{ Params: { id: string } }>('/media/:id', async (request, reply) => {
    const bytes = files.get(request.params.id)
    if (!bytes) return reply.code(404).send()
    return reply.headers(headers(request.params.id)).send(bytes)
  })
  await app.ready()
  server = app.server
}
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 })
})
process.on('disconnect', () => process.exit(0))

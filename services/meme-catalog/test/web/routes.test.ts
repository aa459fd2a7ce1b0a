import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import swagger from '@fastify/swagger'
import Fastify from 'fastify'
import { test } from 'tap'
import { staticRoot } from '../../src/web/assets.ts'
import { webRoutes } from '../../src/web/routes.ts'
import { build } from '../helper.ts'

const assetUrls = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1])

test('the pages carry a strict policy and the usual security headers', async (t) => {
  const app = await build(t)
  for (const url of ['/', '/admin']) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^text\/html; charset=utf-8/)
    const csp = String(res.headers['content-security-policy'])
    t.match(csp, /default-src 'none'/)
    t.match(csp, /script-src 'self'(;|$)/)
    t.match(csp, /style-src 'self'(;|$)/)
    t.match(csp, /frame-ancestors 'none'/)
    t.match(csp, /base-uri 'none'/)
    t.match(csp, /object-src 'none'/)
    t.match(csp, /require-trusted-types-for 'script'/)
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, 'no inline code, eval or wildcard sources')
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['referrer-policy'], 'no-referrer')
    t.equal(res.headers['x-frame-options'], 'DENY')
    t.equal(res.headers['cross-origin-opener-policy'], 'same-origin')
    t.equal(res.headers['cache-control'], 'no-cache')
    // Nothing inline: every script and style comes from a file.
    t.notMatch(res.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
    t.notMatch(res.body, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handler attributes')
    t.notMatch(res.body, /https?:\/\//, 'no external (CDN) references')
    const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(res.headers.etag) } })
    t.equal(again.statusCode, 304, `${url} revalidates with its ETag`)
  }
})

test('assets are versioned by content and cached forever; unknown ones are 404', async (t) => {
  const app = await build(t)
  const page = await app.inject({ method: 'GET', url: '/' })
  const urls = assetUrls(page.body)
  t.ok(urls.some((u) => u.endsWith('/js/main.js')) && urls.some((u) => u.endsWith('/base.css')))
  for (const url of urls) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['cache-control'], /max-age=31536000/)
    t.match(res.headers['cache-control'], /immutable/)
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    if (url.endsWith('.js')) t.match(res.headers['content-type'], /javascript/)
  }
  // Every module the entry points import is served under the same version.
  for (const file of await readdir(path.join(staticRoot, 'js'))) {
    const url = urls[0].replace(/\/assets\/([^/]+)\/.*/, `/assets/$1/js/${file}`)
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url)
  }
  const stale = await app.inject({ method: 'GET', url: '/assets/000000000000/js/main.js' })
  t.equal(stale.statusCode, 404)
  t.type(stale.json().error, 'string')
  const traversal = await app.inject({ method: 'GET', url: `${urls[0].split('/js/')[0]}/../../src/app.ts` })
  t.equal(traversal.statusCode, 404, 'no path traversal out of the static folder')
})

test('the JavaScript shipped to the browser stays under 60 KB gzipped', async (t) => {
  const dir = path.join(staticRoot, 'js')
  let total = 0
  for (const file of await readdir(dir)) total += gzipSync(await readFile(path.join(dir, file)), { level: 9 }).length
  t.ok(total > 1000, 'measured something')
  t.ok(total < 60 * 1024, `${total} bytes gzipped`)
})

test('no page code writes markup from strings', async (t) => {
  const dir = path.join(staticRoot, 'js')
  for (const file of await readdir(dir)) {
    const source = await readFile(path.join(dir, file), 'utf8')
    t.notMatch(source, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/, file)
  }
})

test('page routes are hidden from the OpenAPI document', async (t) => {
  const fastify = Fastify()
  t.teardown(() => fastify.close())
  await fastify.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } })
  await fastify.register(webRoutes)
  await fastify.ready()
  const paths = Object.keys(fastify.swagger().paths ?? {})
  t.same(paths, [], 'no page or asset route is documented')

  const app = await build(t)
  t.test('in the app document', async (t) => {
    const doc = await app.inject({ method: 'GET', url: '/openapi.json' })
    t.equal(doc.statusCode, 200)
    const documented = Object.keys(doc.json().paths ?? {})
    t.notOk(
      documented.some((p) => p === '/' || p === '/admin' || p.startsWith('/assets')),
      'the app document has no page routes',
    )
  })
})

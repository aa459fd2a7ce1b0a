import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { createErrorHandler, createNotFoundHandler } from '@app/common'
import Fastify from 'fastify'
import { test } from 'tap'
import { answers } from '../../src/app.ts'
import { webDistDir } from '../../src/service-root.ts'
import { webSourceHash } from '../../src/web/build.ts'
import { webRoutes } from '../../src/web/routes.ts'
import { build } from '../helper.ts'

const assetOf = (html: string, ext: string) => new RegExp(`/static/assets/[\\w.-]+\\.${ext}`).exec(html)?.[0]

test('the web app on the real service', async (t) => {
  // One service for these checks: starting PGlite is the slow part on a busy machine.
  const app = await build(t)

  t.test('GET / serves the HTML shell with a strict CSP and security headers', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/' })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^text\/html/)
    t.equal(res.headers['cache-control'], 'no-store')
    const csp = String(res.headers['content-security-policy'])
    t.match(csp, /default-src 'none'/)
    t.match(csp, /script-src 'self'(;|$)/)
    t.match(csp, /style-src 'self'(;|$)/)
    t.match(csp, /frame-ancestors 'none'/)
    t.match(csp, /require-trusted-types-for 'script'/)
    t.notMatch(csp, /unsafe-inline|unsafe-eval/)
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['x-frame-options'], 'DENY')
    t.equal(res.headers['referrer-policy'], 'same-origin')
    t.equal(res.headers['cross-origin-opener-policy'], 'same-origin')
    // No inline script: every <script> names a same-origin file under /static/.
    const scripts = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    t.ok(scripts.length >= 1)
    for (const [, attrs, body] of scripts) {
      t.match(attrs, /src="\/static\/assets\//)
      t.equal(body.trim(), '')
    }
    t.notMatch(res.body, /<style|\sstyle="|\son\w+="/i)
  })

  t.test('/static/* serves the built assets with no-store; unknown or hidden files are 404', async (t) => {
    const html = (await app.inject({ method: 'GET', url: '/' })).body
    const js = assetOf(html, 'js')!
    const css = assetOf(html, 'css')!
    t.ok(js && css, 'the shell links a script and a stylesheet')
    const script = await app.inject({ method: 'GET', url: js })
    t.equal(script.statusCode, 200)
    t.match(script.headers['content-type'], /javascript/)
    t.equal(script.headers['cache-control'], 'no-store')
    t.equal(script.headers['x-content-type-options'], 'nosniff')
    const style = await app.inject({ method: 'GET', url: css })
    t.equal(style.statusCode, 200)
    t.match(style.headers['content-type'], /text\/css/)
    t.equal(style.headers['cache-control'], 'no-store')

    const missing = await app.inject({ method: 'GET', url: '/static/assets/nope.js' })
    t.equal(missing.statusCode, 404)
    t.type(missing.json().detail, 'string')
    t.equal(missing.headers['cache-control'], 'no-store')
    const hidden = await app.inject({ method: 'GET', url: '/static/.source-hash' })
    t.equal(hidden.statusCode, 404)
    const traversal = await app.inject({ method: 'GET', url: '/static/../package.json' })
    t.not(traversal.statusCode, 200)
  })

  t.test('the OpenAPI document leaves out the page and the asset route (they are not API)', async (t) => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    t.same(
      Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/static')),
      [],
    )
  })

  t.test('the whole app is under 80 KB of gzipped JavaScript', async (t) => {
    const files = (await readdir(path.join(webDistDir, 'assets'))).filter((f) => f.endsWith('.js'))
    t.ok(files.length > 0)
    let total = 0
    for (const f of files) total += gzipSync(await readFile(path.join(webDistDir, 'assets', f)), { level: 9 }).length
    t.ok(total < 80 * 1024, `gzipped JS is ${total} bytes`)
    t.ok(total > 5 * 1024, 'the bundle holds the app and uPlot, not an empty shell')
  })

  t.test('the build records the hash of the sources it came from', async (t) => {
    t.equal(await readFile(path.join(webDistDir, '.source-hash'), 'utf8'), await webSourceHash())
  })
})

test('webSourceHash changes with any source file', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'web-src-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const { writeFile, mkdir } = await import('node:fs/promises')
  await mkdir(path.join(dir, 'src'))
  await writeFile(path.join(dir, 'src', 'a.ts'), 'one')
  const first = await webSourceHash(dir)
  t.equal(await webSourceHash(dir), first, 'stable')
  await writeFile(path.join(dir, 'src', 'a.ts'), 'two')
  t.not(await webSourceHash(dir), first, 'content change')
})

test('without a build, GET / answers 503 with what to run and the API keeps working', async (t) => {
  const empty = await mkdtemp(path.join(os.tmpdir(), 'web-dist-'))
  t.teardown(() => rm(empty, { recursive: true, force: true }))
  const app = Fastify({ logger: false })
  app.setErrorHandler(createErrorHandler(answers))
  app.setNotFoundHandler(createNotFoundHandler(answers.messageKey))
  await app.register(webRoutes, { distDir: empty })
  app.get('/api/ping', async () => ({ ok: true }))
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'GET', url: '/' })
  t.equal(res.statusCode, 503)
  t.match(res.json().detail, /pnpm --filter @app\/node-dashboard build/)
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal((await app.inject({ method: 'GET', url: '/api/ping' })).statusCode, 200)
})

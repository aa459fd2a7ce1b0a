import { readFile } from 'node:fs/promises'
import http from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { serve } from '../web/browser.ts'

const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** A GET with the request-target sent byte for byte (fetch and inject would normalize dot segments). */
function rawGet(base: string, target: string): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: target, method: 'GET', agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('latin1'),
        }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

// Every escape spelling we know of: plain, encoded dots and slashes, double encoding, backslashes, NUL, overlong UTF-8.
const escapes = [
  '../../../../../../etc/passwd',
  '..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
  '%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%2E%2E%2F%2E%2E%2Fpackage.json',
  '%252e%252e%252f%252e%252e%252f%252e%252e%252fpackage.json',
  '%252e%252e/%252e%252e/%252e%252e/etc/passwd',
  '..\\..\\..\\package.json',
  '..%5c..%5c..%5cpackage.json',
  '%2e%2e%5c%2e%2e%5c%2e%2e%5cpackage.json',
  '....//....//....//etc/passwd',
  '..%c0%af..%c0%af..%c0%afetc/passwd',
  '..%00/..%00/etc/passwd',
  'js/main.js%00.png',
  '%00',
  '../package.json',
  '../../package.json',
  '../../src/app.ts',
  '../../../../package.json',
  'js/../../../src/config.ts',
  '/etc/passwd',
  '%2fetc%2fpasswd',
  '//etc/passwd',
  `${'a'.repeat(300)}.js`,
  `${'a/'.repeat(400)}x`,
  'a'.repeat(6000),
]

test('no file-serving route answers outside its root, and every refusal is a clean 4xx', async (t) => {
  const { app, base } = await serve(t, { CAPTIONER: 'none' })
  const page = await rawGet(base, '/')
  const prefix = /\/assets\/[0-9a-f]+\//.exec(page.body)?.[0]
  t.ok(prefix, `the asset prefix (${prefix})`)
  // The harness can fetch real files, so a leak would be seen.
  t.equal((await rawGet(base, `${prefix}js/main.js`)).status, 200, 'a real asset is served')
  t.equal((await rawGet(base, '/docs/static/swagger-initializer.js')).status, 200, 'a real docs asset is served')

  // Distinctive lines of files outside every static root.
  const rootPackage = JSON.parse(await readFile(path.join(serviceDir, '../../package.json'), 'utf8')) as { name: string }
  const markers = [
    'root:x:0:0:',
    '"name": "@app/meme-catalog"',
    `"name": "${rootPackage.name}"`,
    'export function buildApp(config: Config',
    'export const configSchema',
    '"name": "@fastify/swagger-ui"',
  ]
  t.ok((await readFile(path.join(serviceDir, 'src/app.ts'), 'utf8')).includes(markers[3]), 'markers are real file content')

  const roots = [prefix as string, `${prefix}js/`, '/docs/static/', '/docs/', '/media/', '/static/', '/assets/', '/']
  let checked = 0
  for (const root of roots) {
    for (const spelling of escapes) {
      const target = `${root}${spelling}`
      const res = await rawGet(base, target)
      checked++
      const label = `${target.slice(0, 90)} → ${res.status}`
      const leaked = markers.filter((m) => res.body.includes(m))
      if (res.status >= 400 && res.status < 500 && leaked.length === 0 && cleanError(res)) continue
      // Only failures are reported one by one: 8 roots × 26 spellings would drown the output.
      t.fail(label, { status: res.status, type: res.type, leaked, body: res.body.slice(0, 200) })
    }
  }
  t.equal(checked, roots.length * escapes.length, `${checked} hostile paths answered 4xx {"error"} without file content`)
  t.ok(app.server.listening, 'the server is still up')
})

/** The documented error shape: JSON with exactly one string field, error. */
function cleanError(res: { type: string; body: string }): boolean {
  if (!/^application\/json/.test(res.type)) return false
  try {
    const body = JSON.parse(res.body) as Record<string, unknown>
    return Object.keys(body).length === 1 && typeof body.error === 'string'
  } catch {
    return false
  }
}

test('media ids that look like paths are plain 404s, never a file', async (t) => {
  const { base } = await serve(t, { CAPTIONER: 'none' })
  for (const id of [
    '..%2f..%2fpackage.json',
    '%2e%2e',
    '..',
    '.',
    '%00',
    `${'0'.repeat(63)}%00`,
    `${'a'.repeat(64)}/..`,
    'A'.repeat(64),
  ]) {
    const res = await rawGet(base, `/media/${id}`)
    t.ok(res.status === 404 || res.status === 400, `/media/${id} → ${res.status}`)
    t.ok(cleanError(res), `/media/${id}: ${res.body.slice(0, 80)}`)
    t.notMatch(res.body, /root:x:0:0|"name": "@app/, 'no file content')
  }
})

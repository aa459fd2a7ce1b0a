import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { appendFile, cp, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { test } from 'tap'
import { serviceRoot } from '../../src/service-root.ts'
import { ensureWebBuild, webSourceDir, webSourceHash } from '../../src/web/build.ts'

// A fresh clone has no dist/: the first start builds it, concurrent starts share one build, and an edit rebuilds.
test('ensureWebBuild builds when missing, once for concurrent callers, again when a source changes', async (t) => {
  // Beside web/ (same depth), so the copy resolves node_modules and web/tsconfig.json's "extends" alike.
  const root = path.join(serviceRoot, `.tmp-webbuild-${randomBytes(4).toString('hex')}`)
  t.teardown(() => rm(root, { recursive: true, force: true }))
  t.teardown(() => rm(`${root}-src`, { recursive: true, force: true }))
  const sourceDir = `${root}-src`
  const distDir = path.join(root, 'dist', 'web')
  await cp(webSourceDir, sourceDir, { recursive: true })
  const quiet = { info() {} }

  const states = await Promise.all([
    ensureWebBuild({ sourceDir, distDir, log: quiet }),
    ensureWebBuild({ sourceDir, distDir, log: quiet }),
  ])
  t.same(states.sort(), ['built', 'current'], 'one caller built, the other waited for it')
  t.ok(existsSync(path.join(distDir, 'index.html')))
  t.match(
    await readFile(path.join(distDir, 'index.html'), 'utf8'),
    /<script type="module" crossorigin src="\/static\/assets\/index-[\w-]+\.js"><\/script>/,
  )
  t.equal(await readFile(path.join(distDir, '.source-hash'), 'utf8'), await webSourceHash(sourceDir))
  t.notOk(existsSync(path.join(root, 'dist', '.web-build.lock')), 'the lock is released')

  t.equal(await ensureWebBuild({ sourceDir, distDir, log: quiet }), 'current', 'an unchanged source is not rebuilt')

  await appendFile(path.join(sourceDir, 'src', 'main.ts'), '\n// edited\n')
  t.equal(await ensureWebBuild({ sourceDir, distDir, log: quiet }), 'built', 'an edit rebuilds')
  t.equal(await readFile(path.join(distDir, '.source-hash'), 'utf8'), await webSourceHash(sourceDir))
})

test('without sources an existing build is used as is, and nothing at all is an error', async (t) => {
  const root = path.join(serviceRoot, `.tmp-webbuild-${randomBytes(4).toString('hex')}`)
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const distDir = path.join(root, 'dist', 'web')
  await t.rejects(ensureWebBuild({ sourceDir: path.join(root, 'web'), distDir }), /neither/)
  await cp(path.join(serviceRoot, 'dist', 'web'), distDir, { recursive: true }).catch(() => {})
  if (existsSync(path.join(distDir, 'index.html'))) {
    t.equal(await ensureWebBuild({ sourceDir: path.join(root, 'web'), distDir }), 'prebuilt')
  }
})

import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { serviceRoot, webDistDir } from '../service-root.ts'

/** web/ holds the SPA sources that `pnpm build` turns into dist/web with Vite; the service never builds. */
export const webSourceDir = path.join(serviceRoot, 'web')
const hashFile = '.source-hash'
const lockStaleMs = 180_000

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await listFiles(full)))
    else out.push(full)
  }
  return out
}

/** A digest of every SPA source file, stored beside the build to tell a stale build from a current one. */
export async function webSourceHash(dir = webSourceDir): Promise<string> {
  const hash = createHash('sha256')
  for (const file of (await listFiles(dir)).sort()) {
    hash.update(path.relative(dir, file))
    hash.update('\0')
    hash.update(await fs.readFile(file))
    hash.update('\0')
  }
  return hash.digest('hex')
}

async function builtHash(outDir: string): Promise<string | null> {
  return fs.readFile(path.join(outDir, hashFile), 'utf8').catch(() => null)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs Vite with <sourceDir>/vite.config.ts into `outDir` and records the source hash there. */
export async function buildWeb(outDir = webDistDir, sourceHash?: string, sourceDir = webSourceDir): Promise<void> {
  const { build } = await import('vite')
  await build({ configFile: path.join(sourceDir, 'vite.config.ts'), build: { outDir, emptyOutDir: true }, logLevel: 'warn' })
  await fs.writeFile(path.join(outDir, hashFile), sourceHash ?? (await webSourceHash(sourceDir)))
}

export interface EnsureOptions {
  log?: { info(msg: string): void }
  /** Tests build a copy elsewhere; the service uses web/ and dist/web. */
  sourceDir?: string
  distDir?: string
}

export type BuildState = 'current' | 'built' | 'prebuilt'

/**
 * Makes sure dist/web matches web/: builds when missing or stale. Concurrent builds (`start` and `test` run
 * together) take a lock folder; the others wait for its build. The new build replaces the old by rename.
 * Without the sources (an image holding only dist) an existing build is used as is.
 */
export async function ensureWebBuild({
  log = console,
  sourceDir = webSourceDir,
  distDir = webDistDir,
}: EnsureOptions = {}): Promise<BuildState> {
  if (!existsSync(sourceDir)) {
    if (existsSync(path.join(distDir, 'index.html'))) return 'prebuilt'
    throw new Error(`neither ${distDir} nor the sources in ${sourceDir} exist`)
  }
  const wanted = await webSourceHash(sourceDir)
  if ((await builtHash(distDir)) === wanted) return 'current'
  const parent = path.dirname(distDir)
  const lockDir = path.join(parent, '.web-build.lock')
  await fs.mkdir(parent, { recursive: true })
  const deadline = Date.now() + lockStaleMs
  for (;;) {
    try {
      await fs.mkdir(lockDir)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if ((await builtHash(distDir)) === wanted) return 'current'
    const stat = await fs.stat(lockDir).catch(() => null)
    // A builder that died leaves its lock behind: take over after the stale time.
    if ((stat && Date.now() - stat.mtimeMs > lockStaleMs) || Date.now() > deadline)
      await fs.rm(lockDir, { recursive: true, force: true })
    await sleep(200)
  }
  try {
    if ((await builtHash(distDir)) === wanted) return 'current'
    log.info('building the dashboard web app (web/ changed or dist/web is missing)')
    const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`
    const tmp = path.join(parent, `.web-new-${suffix}`)
    const old = path.join(parent, `.web-old-${suffix}`)
    await buildWeb(tmp, wanted, sourceDir)
    await fs.rename(distDir, old).catch(() => {})
    await fs.rename(tmp, distDir)
    await fs.rm(old, { recursive: true, force: true })
    return 'built'
  } finally {
    await fs.rm(lockDir, { recursive: true, force: true })
  }
}

// `pnpm --filter @app/node-dashboard build:web` runs this file: a Vite build into dist/web unless it is current.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const state = await ensureWebBuild()
  console.log(`${path.relative(process.cwd(), webDistDir) || webDistDir}: ${state === 'built' ? 'built' : 'up to date'}`)
}

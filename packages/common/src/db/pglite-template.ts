import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { copyFile, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** How a new database folder is initialized; a template is made and found by these. */
export interface PgliteInit {
  /** initdb's own parameters (`-c name=value` also lands in the folder's postgresql.conf). */
  initdbParams: readonly string[]
  /** The server parameters of the folder's first start. */
  startParams: readonly string[]
}

/** Written last into a template: its key and every folder and file with its size. */
const MANIFEST = 'pglite-template.json'
/** A lock older than this is left over, whatever its process (another machine's or a reused id). */
const STALE_LOCK_MS = 5 * 60_000

interface Manifest {
  key: string
  dirs: string[]
  files: [string, number][]
}

/** A template missing files or holding files of other sizes than it recorded (half written, partly cleaned). */
export class InvalidTemplateError extends Error {
  override name = 'InvalidTemplateError'
}

const pgliteModule = import.meta.resolve('@electric-sql/pglite')

function pgliteVersion(): string {
  const packageFile = path.join(path.dirname(fileURLToPath(pgliteModule)), '..', 'package.json')
  return (JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string }).version
}

/** A template's folder name: another PGlite version or other parameters never open a template. */
export function pgliteTemplateKey(init: PgliteInit, version = pgliteVersion()): string {
  const digest = createHash('sha256').update(JSON.stringify([version, init.initdbParams, init.startParams]))
  return `${version}-${digest.digest('hex').slice(0, 16)}`
}

// Runs in a child process: PGlite (its module's URL) creates the database folder, then exits.
const initdbScript = `const { PGlite } = await import(process.argv[1])
const init = JSON.parse(process.argv[3])
const db = await PGlite.create(process.argv[2], { initDbStartParams: init.initdbParams, startParams: init.startParams })
await db.close()`

/**
 * initdb in a short-lived child process: it holds a second PostgreSQL, the initdb module, a copy of
 * that PostgreSQL's heap and a tar of the new folder at once (over 600 MB resident), memory a
 * long-running process would keep from its allocator after the garbage collector frees it.
 */
export async function initializeInChild(dataDir: string, init: PgliteInit): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', initdbScript, pgliteModule, dataDir, JSON.stringify(init)],
    { maxBuffer: 1024 * 1024 },
  )
}

async function listTree(root: string, relative = '', into: Omit<Manifest, 'key'> = { dirs: [], files: [] }) {
  for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
    const name = path.join(relative, entry.name)
    if (entry.isDirectory()) {
      into.dirs.push(name)
      await listTree(root, name, into)
    } else if (entry.isFile() && name !== MANIFEST) {
      into.files.push([name, (await stat(path.join(root, name))).size])
    }
  }
  return into
}

async function readManifest(template: string): Promise<Manifest> {
  try {
    return JSON.parse(await readFile(path.join(template, MANIFEST), 'utf8')) as Manifest
  } catch (error) {
    throw new InvalidTemplateError(`${template} has no readable manifest`, { cause: error })
  }
}

/** Takes `file` as a lock; resolves undefined instead once `done()` holds (another process finished). */
async function acquireLock(file: string, done: () => boolean): Promise<(() => Promise<void>) | undefined> {
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' })
      return () => rm(file, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if (done()) return undefined
    if (await lockIsStale(file)) await rm(file, { force: true })
    else await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function lockIsStale(file: string): Promise<boolean> {
  try {
    const [holder, info] = await Promise.all([readFile(file, 'utf8'), stat(file)])
    if (Date.now() - info.mtimeMs > STALE_LOCK_MS) return true
    if (!holder) return false
    process.kill(Number(holder), 0)
    return false
  } catch (error) {
    // ESRCH: its process is gone; ENOENT: released meanwhile (taking it is retried at once).
    return ['ESRCH', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')
  }
}

/** Moves a template out of its name first, so no process copies from it while it is deleted. */
export async function discardPgliteTemplate(template: string): Promise<void> {
  const aside = `${template}.discarded-${randomBytes(4).toString('hex')}`
  try {
    await rename(template, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  await rm(aside, { recursive: true, force: true })
}

/**
 * The template for `init` under `parent`, made by initdb in a child process when missing. Processes
 * making it at once wait for one of them (a lock file naming its process); it is made in a folder of
 * its own and renamed into place whole, with its manifest, so no process sees it half written.
 */
export async function ensurePgliteTemplate(parent: string, init: PgliteInit): Promise<{ dir: string; created: boolean }> {
  const key = pgliteTemplateKey(init)
  const dir = path.join(parent, key)
  const ready = () => existsSync(path.join(dir, MANIFEST))
  if (ready()) return { dir, created: false }
  await mkdir(parent, { recursive: true })
  const release = await acquireLock(`${dir}.lock`, ready)
  if (!release) return { dir, created: false }
  try {
    if (ready()) return { dir, created: false }
    const staging = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
    try {
      await initializeInChild(staging, init)
      const manifest: Manifest = { key, ...(await listTree(staging)) }
      await writeFile(path.join(staging, MANIFEST), JSON.stringify(manifest))
      // A folder without manifest under the name is a partly deleted template: set aside, never merged.
      if (existsSync(dir)) await discardPgliteTemplate(dir)
      await rename(staging, dir)
    } finally {
      await rm(staging, { recursive: true, force: true })
    }
    return { dir, created: true }
  } finally {
    await release()
  }
}

/**
 * Copies a template into `dataDir` and checks it against its manifest on the way. PG_VERSION, by
 * which a folder counts as a database, comes last: a copy cut short is copied again at the next start.
 */
export async function copyPgliteTemplate(template: string, dataDir: string): Promise<void> {
  const { key, dirs, files } = await readManifest(template)
  if (key !== path.basename(template)) throw new InvalidTemplateError(`${template} holds the template ${key}`)
  await mkdir(dataDir, { recursive: true })
  for (const dir of dirs) await mkdir(path.join(dataDir, dir), { recursive: true })
  const copyOne = async ([file, size]: [string, number]) => {
    const found = await stat(path.join(template, file)).catch(() => undefined)
    if (found?.size !== size) throw new InvalidTemplateError(`${template}: ${file} is missing or of another size`)
    await copyFile(path.join(template, file), path.join(dataDir, file))
  }
  const last = files.filter(([file]) => file === 'PG_VERSION')
  const rest = files.filter(([file]) => file !== 'PG_VERSION')
  if (last.length !== 1) throw new InvalidTemplateError(`${template} lists no PG_VERSION`)
  for (let i = 0; i < rest.length; i += 32) await Promise.all(rest.slice(i, i + 32).map(copyOne))
  await copyOne(last[0] as [string, number])
}

/**
 * This user's template cache in the system temp folder, or undefined when it cannot be one: a folder
 * another user owns or may write to could hand this process a database of their making.
 */
export async function pgliteTemplateCacheDir(): Promise<string | undefined> {
  const uid = process.getuid?.()
  const dir = path.join(tmpdir(), `pglite-templates-${uid ?? 'user'}`)
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    const info = await lstat(dir)
    if (!info.isDirectory()) return undefined
    if (uid !== undefined && (info.uid !== uid || (info.mode & 0o077) !== 0)) return undefined
    return dir
  } catch {
    return undefined
  }
}

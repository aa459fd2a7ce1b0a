/** The real catalog server in a process of its own (demo data) for the benches: the load generator does not share its event loop. */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '@app/testing'
import { serveSettings } from '../../../scripts/serve-settings.mjs'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))

/** CPU time (user + system) the process has used, in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

export interface CatalogProcess {
  server: ChildProcess
  port: number
  base: string
  stop(): Promise<void>
}

/** How `pnpm serve` starts the compiled server: a bench of the production process follows the script. */
export const serveCommand = () => serveSettings(root)

/**
 * Starts the server on a free port with a fresh data folder and demo memes; `env` adds settings. By default
 * `src/server.ts` through tsx; `compiled` runs dist/ as `pnpm serve` does (build it first).
 */
export async function startCatalog(env: Record<string, string>, { compiled = false } = {}): Promise<CatalogProcess> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'catalog-bench-'))
  const port = await freePort()
  const serve = compiled ? serveCommand() : null
  if (serve && !existsSync(path.join(root, serve.entry))) {
    throw new Error(`${serve.entry} is missing: run pnpm --filter @app/meme-catalog build first`)
  }
  const args = serve ? [...serve.nodeArgs, serve.entry] : ['--import', 'tsx', 'src/server.ts']
  const server = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ...serve?.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DEMO_MEMES: 'true',
      CAPTIONER: 'none',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...env,
    },
  })
  return {
    server,
    port,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      server.kill('SIGTERM')
      await new Promise((r) => server.once('exit', r))
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

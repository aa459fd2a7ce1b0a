/** The real catalog server in a process of its own (demo data) for the benches: the load generator does not share its event loop. */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`timed out waiting for ${what}`)
}

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

/** Starts `src/server.ts` on a free port with a fresh data folder and demo memes; `env` adds settings. */
export async function startCatalog(env: Record<string, string>): Promise<CatalogProcess> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'catalog-bench-'))
  const port = await freePort()
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
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

import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../network.ts'

const run = promisify(execFile)

/** A throwaway PostgreSQL cluster owned by this test: it can be stopped without touching the shared server. */
export interface PrivatePostgres {
  url: string
  port: number
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
  destroy(): Promise<void>
}

function findBinaries(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
  for (const version of versions) {
    const bin = path.join(root, version, 'bin')
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin
  }
  return undefined
}

/** Why a private cluster cannot be made here, or undefined when it can. */
export function unavailableReason(): string | undefined {
  if (!findBinaries()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin'
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser')) return 'running as root without runuser to drop to postgres'
  return undefined
}

/** initdb + pg_ctl start on a free port in a temp dir; initdb refuses root, so root runs them as the postgres user. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = findBinaries()
  if (!bin) throw new Error('no PostgreSQL binaries')
  const dir = await mkdtemp(path.join(tmpdir(), 'pg-fault-'))
  const data = path.join(dir, 'data')
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    await chown(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  const exec = (file: string, args: string[]) =>
    asRoot ? run('/usr/sbin/runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args]) : run(path.join(bin, file), args)
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  const port = await freePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`
  const start = async () => {
    await exec('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'])
  }
  await start()
  let running = true
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop(mode = 'fast') {
      await exec('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop'])
      running = false
    },
    async start() {
      await start()
      running = true
    },
    async destroy() {
      if (running) await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
      await rm(dir, { recursive: true, force: true })
    },
  }
}

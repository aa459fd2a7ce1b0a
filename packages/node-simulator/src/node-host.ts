import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { CORRUPT_MARKER, lockHolder } from './daemon.ts'
import { rpc } from './http-client.ts'

/** The script the dashboard's start command runs over SSH, standing in for bitcoind. */
export const NODE_BINARY = fileURLToPath(new URL('../bin/bitcoind.sh', import.meta.url))

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

export function run(file: string, args: string[], timeoutMs = 20_000): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

export interface NodeHost {
  dir: string
  datadir: string
  /** The regtest lock directory, as named in "Cannot obtain a lock on directory ...". */
  lockDir: string
  confPath: string
  /** <datadir>/regtest/debug.log, appended to at each start. */
  debugLogPath: string
  /** Makes the next starts fail like a corrupted block database (debug.log says to reindex) until one runs with -reindex. */
  corruptBlockDatabase(): Promise<void>
  /** Where the node writes its RPC cookie at each start (with `cookieAuth`). */
  cookiePath: string
  port: number
  url: string
  /** Writes a bitcoin.conf (regtest, rpcuser u / rpcpassword p or none with `cookieAuth`, the port, the datadir). */
  writeConf(file?: string, extra?: string): Promise<string>
  /** Runs bin/bitcoind.sh directly (no SSH). */
  start(args?: string[]): Promise<RunResult>
  /** Resolves once the node answers getblockcount (warm-up over). */
  waitReady(timeoutMs?: number): Promise<void>
  /** Resolves once no process holds the datadir lock. */
  waitExited(timeoutMs?: number): Promise<void>
  isRunning(): boolean
  cleanup(): Promise<void>
}

/**
 * A data directory and config for a daemonised simulator node, killed at cleanup. With `cookieAuth` the
 * config sets no RPC password, so the node authenticates by a cookie file it rewrites at every start.
 */
export async function createNodeHost({
  lockHoldMs = 1500,
  cookieAuth = false,
}: {
  lockHoldMs?: number
  cookieAuth?: boolean
} = {}): Promise<NodeHost> {
  const dir = await mkdtemp(path.join(tmpdir(), 'node-host-'))
  const datadir = path.join(dir, 'data')
  await mkdir(datadir)
  const port = await freePort()
  const lockDir = path.join(datadir, 'regtest')
  const host: NodeHost = {
    dir,
    datadir,
    lockDir,
    confPath: path.join(dir, 'bitcoin.conf'),
    cookiePath: path.join(lockDir, '.cookie'),
    debugLogPath: path.join(lockDir, 'debug.log'),
    async corruptBlockDatabase() {
      await mkdir(lockDir, { recursive: true })
      await writeFile(path.join(lockDir, CORRUPT_MARKER), '')
    },
    port,
    url: `http://127.0.0.1:${port}/`,
    async writeConf(file = host.confPath, extra = '') {
      const conf = [
        'regtest=1',
        `datadir=${datadir}`,
        ...(cookieAuth ? [] : ['rpcuser=u', 'rpcpassword=p']),
        'wallet=w1',
        'simwarmupms=50',
        `simlockholdms=${lockHoldMs}`,
        '[regtest]',
        `rpcport=${port}`,
        extra,
      ].join('\n')
      await writeFile(file, conf)
      return file
    },
    start: (args = [`-conf=${host.confPath}`, '-daemon']) => run(NODE_BINARY, args),
    async waitReady(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const auth = cookieAuth ? await readFile(host.cookiePath, 'utf8').catch(() => '') : 'u:p'
        const reply = await rpc(host.url, 'getblockcount', [], { auth }).catch(() => null)
        if (reply?.json?.result === 101) return
        if (Date.now() > deadline) throw new Error('node did not become ready')
        await sleep(50)
      }
    },
    async waitExited(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      while (lockHolder(lockDir) !== null) {
        if (Date.now() > deadline) throw new Error('node did not exit')
        await sleep(50)
      }
    },
    isRunning: () => lockHolder(lockDir) !== null,
    async cleanup() {
      const pid = lockHolder(lockDir)
      if (pid !== null) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {}
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
  return host
}

/** The pid of the node process holding `host`'s datadir lock (null when none). */
export const lockHolderOf = (host: NodeHost) => lockHolder(host.lockDir)

import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { NodeVersion } from './help.ts'
import { startNodeSimulator } from './server.ts'

// The process face of the simulator, shaped like `bitcoind -conf=<file> -daemon` (v30): conf file,
// datadir lock probed before forking, "Bitcoin Core starting", and the lock held ~1.5 s after `stop`.

export interface Settings {
  args: Map<string, string[]>
  get(key: string): string | undefined
  all(key: string): string[]
  flag(key: string): boolean
}

/** `-key=value` / `-key` / `-nokey` command-line arguments. */
export function parseArgs(argv: string[]): Map<string, string[]> {
  const args = new Map<string, string[]>()
  for (const raw of argv) {
    if (!raw.startsWith('-')) continue
    const arg = raw.replace(/^--?/, '')
    const eq = arg.indexOf('=')
    let key = eq === -1 ? arg : arg.slice(0, eq)
    let value = eq === -1 ? '1' : arg.slice(eq + 1)
    if (key.startsWith('no') && eq === -1) {
      key = key.slice(2)
      value = '0'
    }
    args.set(key, [...(args.get(key) ?? []), value])
  }
  return args
}

/** bitcoin.conf: key=value lines, `#` comments, [chain] sections applying to that chain only. */
export function parseConf(text: string, chain: string, into: Map<string, string[]>): void {
  let section = ''
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim()
    if (line === '') continue
    const header = /^\[(.+)\]$/.exec(line)
    if (header) {
      section = header[1]
      continue
    }
    if (section !== '' && section !== chain) continue
    const eq = line.indexOf('=')
    const key = (eq === -1 ? line : line.slice(0, eq)).trim()
    const value = eq === -1 ? '1' : line.slice(eq + 1).trim()
    // Command-line values win over the file.
    if (into.has(key) && key !== 'wallet') continue
    into.set(key, [...(into.get(key) ?? []), value])
  }
}

function settingsOf(args: Map<string, string[]>): Settings {
  return {
    args,
    get: (key) => args.get(key)?.at(-1),
    all: (key) => args.get(key) ?? [],
    flag: (key) => {
      const v = args.get(key)?.at(-1)
      return v !== undefined && v !== '0'
    },
  }
}

class InitError extends Error {}

const CHAIN_DIRS: Record<string, string> = {
  main: '',
  test: 'testnet3',
  testnet4: 'testnet4',
  signet: 'signet',
  regtest: 'regtest',
}
const DEFAULT_PORTS: Record<string, number> = { main: 8332, test: 18332, testnet4: 48332, signet: 38332, regtest: 18443 }

interface Node {
  settings: Settings
  chain: string
  datadir: string
  lockDir: string
}

function load(argv: string[]): Node {
  const cli = parseArgs(argv)
  const first = settingsOf(cli)
  const baseDir = path.resolve(first.get('datadir') ?? path.join(homedir(), '.bitcoin'))
  const confArg = first.get('conf')
  // Core resolves a relative -conf against the data directory.
  const confPath = confArg === undefined ? path.join(baseDir, 'bitcoin.conf') : path.resolve(baseDir, confArg)
  let text = ''
  try {
    text = readFileSync(confPath, 'utf8')
  } catch {
    if (confArg !== undefined) {
      throw new InitError(`Error reading configuration file: specified config file "${confPath}" could not be opened.`)
    }
  }
  // The chain may be chosen in the file, so look it up before applying sections.
  const probe = new Map(cli)
  parseConf(text, '', probe)
  const p = settingsOf(probe)
  const chain =
    p.get('chain') ?? (p.flag('regtest') ? 'regtest' : p.flag('testnet') ? 'test' : p.flag('signet') ? 'signet' : 'main')
  const merged = new Map(cli)
  parseConf(text, chain, merged)
  const settings = settingsOf(merged)
  const datadir = path.resolve(settings.get('datadir') ?? baseDir)
  // Like Core: a named datadir must exist; the default one is created.
  if (settings.get('datadir') === undefined) mkdirSync(datadir, { recursive: true })
  if (!existsSync(datadir) || !statSync(datadir).isDirectory()) {
    throw new InitError(`Specified data directory "${datadir}" does not exist.`)
  }
  return { settings, chain, datadir, lockDir: path.join(datadir, CHAIN_DIRS[chain] ?? chain) }
}

/** The pid holding the datadir lock, or null when it is free (a dead holder's lock is stale). */
export function lockHolder(lockDir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(lockDir, '.lock'), 'utf8').trim())
    if (!Number.isInteger(pid) || pid <= 0) return null
    process.kill(pid, 0)
    return pid
  } catch {
    return null
  }
}

function lockError(node: Node) {
  return new InitError(`Cannot obtain a lock on directory ${node.lockDir}. Bitcoin Core is probably already running.`)
}

/** The marker a test leaves in the chain directory for a block database that fails verification; -reindex clears it. */
export const CORRUPT_MARKER = 'simcorrupt'

/** Appends to <chain dir>/debug.log with bitcoind's default timestamps ("2026-11-24T19:20:00Z "). */
function logLine(node: Node, ...lines: string[]) {
  const stamp = `${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} `
  appendFileSync(path.join(node.lockDir, 'debug.log'), lines.map((line) => `${stamp}${line}\n`).join(''))
}

/** The warm-up statuses in init.cpp's order (v30), each held for its sim*ms setting. */
function warmupSteps(settings: Settings): { status: string; ms: number }[] {
  const ms = (key: string, fallback: number) => Number(settings.get(key) ?? fallback)
  return [
    { status: 'Loading banlist…', ms: ms('simwarmupms', 100) },
    { status: 'Loading block index…', ms: ms('simblockindexms', 0) },
    { status: 'Verifying blocks…', ms: ms('simverifyblocksms', 0) },
    ...(settings.all('wallet').length > 0 ? [{ status: 'Loading wallet…', ms: ms('simloadwalletms', 0) }] : []),
  ]
}

async function runNode(node: Node, onReady: () => void): Promise<void> {
  const { settings } = node
  const holder = lockHolder(node.lockDir)
  // The daemon parent wrote our pid (or is still alive holding it for us).
  if (holder !== null && holder !== process.pid && holder !== process.ppid) throw lockError(node)
  writeFileSync(path.join(node.lockDir, '.lock'), String(process.pid))
  const pidFile = path.join(node.datadir, settings.get('pid') ?? 'bitcoind.pid')
  writeFileSync(pidFile, `${process.pid}\n`)
  let user = settings.get('rpcuser')
  let password = settings.get('rpcpassword')
  const cookie = path.join(node.lockDir, '.cookie')
  if (!user || password === undefined) {
    user = '__cookie__'
    password = randomBytes(32).toString('hex')
    writeFileSync(cookie, `${user}:${password}`, { mode: 0o600 })
  }
  const release = () => {
    rmSync(cookie, { force: true })
    rmSync(pidFile, { force: true })
    rmSync(path.join(node.lockDir, '.lock'), { force: true })
  }
  const version = settings.get('simversion') ?? '30.0.0'
  logLine(node, `Bitcoin Core version v${version} (release build)`, `Using data directory ${node.lockDir}`)
  const marker = path.join(node.lockDir, CORRUPT_MARKER)
  if (settings.flag('reindex') && existsSync(marker)) {
    rmSync(marker)
    logLine(node, 'Wiping LevelDB in ' + path.join(node.lockDir, 'blocks', 'index'), 'Reindexing block file blk00000.dat...')
  }
  const corrupt = existsSync(marker)
  const simulator = await startNodeSimulator({
    host: settings.get('rpcbind') ?? '127.0.0.1',
    port: Number(settings.get('rpcport') ?? DEFAULT_PORTS[node.chain] ?? 8332),
    user,
    password,
    wallets: settings.all('wallet'),
    // The RPC server answers -28 from early in init, so a failing chainstate load is seen as a warm-up first.
    warmup: corrupt ? 'Loading block index…' : warmupSteps(settings),
    latencyMs: Number(settings.get('simlatencyms') ?? 0),
    version: version as NodeVersion,
    fork: settings.flag('simfork'),
    blockIntervalMs: Number(settings.get('simblockintervalms') ?? 0),
    txIntervalMs: Number(settings.get('simtxintervalms') ?? 0),
  }).catch((error) => {
    release()
    throw new InitError(`Unable to bind to the RPC port: ${(error as Error).message}`)
  })
  const shutdown = async () => {
    await simulator.close()
    // bitcoind v30 keeps the datadir lock while it flushes and exits, 1.5-2 s after the port closed.
    await sleep(Number(settings.get('simlockholdms') ?? 1500))
    release()
    process.exit(0)
  }
  process.once('SIGTERM', () => void shutdown())
  process.once('SIGINT', () => void shutdown())
  if (corrupt) {
    // init.cpp's non-interactive answer to "Do you want to rebuild the databases now?", then exit 1.
    await sleep(Number(settings.get('simfailms') ?? 300))
    logLine(
      node,
      'Verifying last 6 blocks at level 3',
      'Error: Corrupted block database detected.\nPlease restart with -reindex or -reindex-chainstate to recover.',
      'Aborted block database rebuild. Exiting.',
      'Shutdown: In progress...',
      'Shutdown: done',
    )
    await simulator.close()
    release()
    process.exit(1)
  }
  onReady()
  await simulator.closed
  await shutdown()
}

/** The command-line entry: exit code and output like bitcoind's. */
export async function main(argv: string[], scriptPath: string): Promise<void> {
  // Like bitcoind, -version answers before any config or datadir is read.
  const early = settingsOf(parseArgs(argv))
  if (early.flag('version')) {
    const version = early.get('simversion') ?? '30.0.0'
    process.stdout.write(`Bitcoin Core daemon version v${version}\nCopyright (C) 2009-2025 The Bitcoin Core developers\n`)
    process.exit(0)
  }
  let node: Node
  try {
    node = load(argv)
    const { settings } = node
    const daemon = settings.flag('daemon') || settings.flag('daemonwait')
    mkdirSync(node.lockDir, { recursive: true })
    // Core probes the lock before forking so a second start fails in the foreground.
    if (lockHolder(node.lockDir) !== null && !settings.flag('simchild')) throw lockError(node)
    if (daemon && !settings.flag('simchild')) {
      process.stdout.write('Bitcoin Core starting\n')
      const wait = settings.flag('daemonwait')
      const child = spawn(process.execPath, [...process.execArgv, scriptPath, ...argv, '-simchild'], {
        detached: true,
        stdio: wait ? ['ignore', 'ignore', 'ignore', 'ipc'] : 'ignore',
      })
      // Taken for the child at once, so a start racing the child's boot still sees the lock.
      writeFileSync(path.join(node.lockDir, '.lock'), String(child.pid))
      if (!wait) {
        child.unref()
        process.exit(0)
      }
      child.once('message', (m) => {
        if (m !== 'ready') process.stderr.write('Error during initialization - check debug.log for details\n')
        process.exit(m === 'ready' ? 0 : 1)
      })
      child.once('exit', () => {
        process.stderr.write('Error during initialization - check debug.log for details\n')
        process.exit(1)
      })
      return
    }
    await runNode(node, () => {
      if (process.send) {
        process.send('ready')
        process.disconnect()
      }
    })
  } catch (error) {
    if (error instanceof InitError) {
      process.stderr.write(`Error: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
}

import { createHash, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Chain, type WalletState } from './chain.ts'
import type { NodeVersion } from './help.ts'
import { handleBody } from './jsonrpc.ts'
import type { ExecContext } from './methods.ts'

export interface NodeSimulatorOptions {
  /** 0 or absent: a free port. */
  port?: number
  host?: string
  user?: string
  password?: string
  /** Loaded wallets; the first holds the captured coins. Default ["w1"]. */
  wallets?: string[]
  /**
   * Warm-up: a status string keeps the node in warm-up (-28) until setWarmup(null); a number of ms
   * warms up that long with "Loading banlist…"; steps warm up with each status in turn for its ms;
   * false/absent starts ready.
   */
  warmup?: string | number | false | { status: string; ms: number }[]
  /** Added to every HTTP request after authentication (a batch counts once). */
  latencyMs?: number
  version?: NodeVersion
  /** A Dogecoin-1.14-like fork: no `uptime`, no /wallet/ endpoint, its own stop reply. */
  fork?: boolean
  /** Start with the HTTP work queue full (503 to everything). */
  workQueueFull?: boolean
  /** Blocks mined by the clock (default 0: only mine()). */
  blockIntervalMs?: number
  /** Mempool transactions arriving by the clock (default 0: only addTransactions()). */
  txIntervalMs?: number
  peers?: number
  stopMessage?: string
  /** A chain to serve instead of a new one (a node started again keeps its blocks); the chain options above are then unused. */
  chain?: Chain
}

export interface RecordedCall {
  path: string
  body: string
  at: number
}

export interface NodeSimulator {
  url: string
  host: string
  port: number
  user: string
  password: string
  /** Resolves once the listener is closed (by RPC stop or close()). */
  closed: Promise<void>
  readonly stoppedByRpc: boolean
  /** Every authenticated request body, in order. */
  requests: RecordedCall[]
  chain: Chain
  setWarmup(status: string | null): void
  setLatency(ms: number): void
  setWorkQueueFull(full: boolean): void
  setWallets(names: string[]): void
  mine(count?: number): void
  addTransactions(count?: number): void
  /** Closes the listener (test teardown); resolves when it is closed. */
  close(): Promise<void>
  /** The same as close(). */
  stop(): Promise<void>
}

const HTML = 'text/html; charset=ISO-8859-1'
// libevent's early rejection: anything but GET/POST/HEAD/PUT/OPTIONS never reaches the handler.
const KNOWN_METHODS = new Set(['GET', 'POST', 'HEAD', 'PUT', 'OPTIONS'])

function sendText(res: http.ServerResponse, status: number, body = '', headers: Record<string, string> = {}) {
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body), 'Content-Type': HTML })
  res.end(body)
}

const digest = (s: string) => createHash('sha256').update(s).digest()

/** A Bitcoin-Core-family JSON-RPC server over HTTP (see data/bitcoind). */
export async function startNodeSimulator(options: NodeSimulatorOptions = {}): Promise<NodeSimulator> {
  const user = options.user ?? 'u'
  const password = options.password ?? 'p'
  const version = options.version ?? '30.0.0'
  const fork = options.fork ?? false
  const chain =
    options.chain ??
    new Chain({
      blockIntervalMs: options.blockIntervalMs ?? 0,
      txIntervalMs: options.txIntervalMs ?? 0,
      peers: options.peers ?? 0,
      version,
    })
  let wallets: WalletState[] = (options.wallets ?? ['w1']).map((name, i) => ({ name, funded: i === 0 }))
  let warmup: string | null = typeof options.warmup === 'string' ? options.warmup : null
  const steps =
    typeof options.warmup === 'number' && options.warmup > 0
      ? [{ status: 'Loading banlist…', ms: options.warmup }]
      : Array.isArray(options.warmup)
        ? options.warmup.filter((step) => step.ms > 0)
        : []
  // Each step's status holds for its ms, unless a test set another status meanwhile.
  const advanceWarmup = (index: number) => {
    const step = steps[index]
    if (!step) return
    warmup = step.status
    setTimeout(() => {
      if (warmup !== step.status) return
      warmup = null
      advanceWarmup(index + 1)
    }, step.ms).unref()
  }
  advanceWarmup(0)
  let latencyMs = options.latencyMs ?? 0
  let workQueueFull = options.workQueueFull ?? false
  let stoppedByRpc = false
  const requests: RecordedCall[] = []
  const expected = digest(`${user}:${password}`)
  const sockets = new Set<Socket>()

  const authorized = (header: string | undefined) => {
    if (!header?.startsWith('Basic ')) return false
    const given = digest(Buffer.from(header.slice(6).trim(), 'base64').toString('utf8'))
    return timingSafeEqual(given, expected)
  }

  const server = http.createServer(async (req, res) => {
    const url = req.url ?? '/'
    const method = req.method ?? 'GET'
    if (!KNOWN_METHODS.has(method)) return sendText(res, 405)
    const walletMatch = !fork && url.startsWith('/wallet/')
    if (url !== '/' && !walletMatch) return sendText(res, 404)
    if (workQueueFull) return sendText(res, 503, 'Work queue depth exceeded')
    if (method !== 'POST') return sendText(res, 405, 'JSONRPC server handles only POST requests')
    const auth = req.headers.authorization
    if (auth === undefined) return sendText(res, 401, '', { 'WWW-Authenticate': 'Basic realm="jsonrpc"' })
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (!authorized(auth)) {
      // Core sleeps 250 ms on a wrong password to slow down guessing.
      await sleep(250)
      return sendText(res, 401, '', { 'WWW-Authenticate': 'Basic realm="jsonrpc"' })
    }
    const body = Buffer.concat(chunks).toString('utf8')
    requests.push({ path: url, body, at: Date.now() })
    if (latencyMs > 0) await sleep(latencyMs)
    chain.advance()
    let walletPath: string | null = null
    if (walletMatch) {
      try {
        walletPath = decodeURIComponent(url.slice('/wallet/'.length))
      } catch {
        walletPath = url.slice('/wallet/'.length)
      }
    }
    let stopNow = false
    const ctx: ExecContext = {
      chain,
      wallets,
      walletPath,
      version,
      fork,
      stopMessage: options.stopMessage ?? (fork ? 'Dogecoin server stopping' : 'Bitcoin Core stopping'),
      subversion: fork ? '/Shibetoshi:1.14.9/' : `/Satoshi:${version}/`,
      clientVersion: fork ? 1140900 : Number(version.split('.')[0]) * 10000,
      requestStop: () => {
        stopNow = true
      },
    }
    const reply = handleBody(ctx, warmup, body)
    if (stopNow) {
      stoppedByRpc = true
      res.setHeader('Connection', 'close')
    }
    if (reply.body === null) {
      res.writeHead(reply.status)
      res.end()
    } else {
      const text = `${reply.body}\n`
      res.writeHead(reply.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) })
      res.end(text)
    }
    // Like bitcoind: the stop reply goes out, then the RPC port closes at once.
    if (stopNow) res.once('finish', () => void shutdown())
  })
  server.keepAliveTimeout = 30_000
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })

  let closedResolve!: () => void
  const closed = new Promise<void>((resolve) => {
    closedResolve = resolve
  })
  let shuttingDown: Promise<void> | null = null
  const shutdown = () => {
    shuttingDown ??= new Promise<void>((resolve) => {
      server.close(() => {
        closedResolve()
        resolve()
      })
      for (const socket of sockets) socket.destroy()
    })
    return shuttingDown
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = options.host ?? '127.0.0.1'

  return {
    url: `http://${host}:${address.port}/`,
    host,
    port: address.port,
    user,
    password,
    closed,
    get stoppedByRpc() {
      return stoppedByRpc
    },
    requests,
    chain,
    setWarmup(status) {
      warmup = status
    },
    setLatency(ms) {
      latencyMs = ms
    },
    setWorkQueueFull(full) {
      workQueueFull = full
    },
    setWallets(names) {
      wallets = names.map((name, i) => ({ name, funded: i === 0 }))
    },
    mine: (count) => chain.mine(count),
    addTransactions: (count) => chain.addTransactions(count),
    close: shutdown,
    stop: shutdown,
  }
}

/**
 * Node JSON-RPC client. For other route authors: `fastify.rpc.call(method, params?, { wallet?, timeoutMs? })`
 * resolves to the method's result or throws RpcError (an HttpError: 502 with a clear detail, 400 when
 * rpc_url is not set). `error.kind` tells why (see errors.ts), `error.rpcCode`/`rpcMessage` carry a node error.
 * `fastify.rpc.batch([{ method, params }], options)` sends one JSON-RPC batch; each item is { ok, result | error }.
 * Wallet: `undefined`/`null` -> the rpc_wallet setting; '' -> no wallet (root endpoint); a name -> /wallet/<name>.
 */
import { HttpError, readCappedText } from '@app/common'
import type { NodeSettings } from '../settings/repository.ts'
import type { CookieReader, RpcCookie } from './cookie.ts'
import { RpcError } from './errors.ts'

export interface RpcCallOptions {
  wallet?: string | null
  timeoutMs?: number
  /** Settings already read by the caller (saves a database read per call in a round of calls). */
  settings?: NodeSettings
  /** A tighter reply size limit for this call than the client's (e.g. for text the dashboard parses). */
  maxReplyBytes?: number
}

export type RpcParams = unknown[] | Record<string, unknown>

export type BatchOutcome = { ok: true; result: unknown } | { ok: false; error: RpcError }

export interface RpcClient {
  call<T = unknown>(method: string, params?: RpcParams, options?: RpcCallOptions): Promise<T>
  /** One HTTP request for several calls (same endpoint); each item succeeds or fails on its own. */
  batch(calls: { method: string; params?: RpcParams }[], options?: RpcCallOptions): Promise<BatchOutcome[]>
}

export interface RpcClientOptions {
  settings: () => Promise<NodeSettings>
  timeoutMs: number
  /** Replies above this size are refused (getblock verbosity 2 of a full block is a few MB). */
  maxReplyBytes?: number
  /** Reads the node's cookie when rpc_cookie_path is set and rpc_password is not. */
  cookies?: CookieReader
  /** Told the duration of every method sent to the node and each method that failed (Prometheus metrics). */
  observer?: RpcObserver
}

export interface RpcObserver {
  /** A method's exchange with the node ended after `seconds` (each method of a batch gets the batch's time). */
  observe(method: string, seconds: number): void
  /** A method failed: the exchange that carried it, or the node's error reply to it. */
  failed(method: string, error: RpcError): void
}

/** A failed cookie read is kept this long, so a stopped node is not asked over SSH at every call. */
const COOKIE_FAILURE_MS = 5_000

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
}

const clip = (text: string, max = 4000) => (text.length > max ? `${text.slice(0, max)}…` : text)

export function endpointUrl(rpcUrl: string, wallet: string): string {
  // encodeURIComponent throws URIError on a lone surrogate (valid in JSON): refuse the name instead of a 500.
  // With the u flag a surrogate class matches only unpaired surrogates (pairs are one code point).
  if (/[\uD800-\uDFFF]/u.test(wallet)) throw new HttpError(422, 'Invalid wallet name: it is not well-formed Unicode.')
  const url = new URL(rpcUrl)
  if (wallet) url.pathname = `${withoutTrailingSlashes(url.pathname)}/wallet/${encodeURIComponent(wallet)}`
  return url.toString()
}

function withoutTrailingSlashes(path: string): string {
  let end = path.length
  while (end > 0 && path[end - 1] === '/') end--
  return path.slice(0, end)
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`

function describeFetchFailure(error: unknown, where: string, timeoutMs: number, method: string): RpcError {
  const e = error as Error & { cause?: { code?: string; message?: string } }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return new RpcError('timeout', `Node RPC timed out after ${timeoutMs} ms (${method} at ${where}).`)
  }
  const code = e?.cause?.code ?? (e as { code?: string }).code
  const what = (code && NETWORK_CODES[code]) ?? e?.cause?.message ?? e?.message ?? 'network error'
  return new RpcError('unreachable', `Node RPC unreachable at ${where}: ${what}.`)
}

type ErrorObject = { code?: unknown; message?: unknown }
type ReplyObject = { result?: unknown; error?: ErrorObject | null; id?: unknown }

function replyError(error: ErrorObject, method: string): RpcError {
  const code = typeof error.code === 'number' ? error.code : undefined
  const message = typeof error.message === 'string' ? error.message : JSON.stringify(error)
  if (code === -28) return new RpcError('warmup', `Node is starting (warm-up): ${clip(message)}`, code, message)
  return new RpcError('rpc', `Node RPC error ${code ?? '?'} on ${method}: ${clip(message)}`, code, message)
}

export function createRpcClient({
  settings,
  timeoutMs,
  maxReplyBytes = 64 * 1024 * 1024,
  cookies,
  observer,
}: RpcClientOptions): RpcClient {
  let nextId = 1
  // One read shared by concurrent calls; the key names the file and the SSH account it came from.
  let cookie: { key: string; value: Promise<RpcCookie>; failedAt?: number } | null = null

  function readCookie(s: NodeSettings, stale?: Promise<RpcCookie>): Promise<RpcCookie> {
    const key = [s.rpc_url, s.rpc_cookie_path, s.ssh_host, s.ssh_port, s.ssh_username, s.ssh_host_key_fingerprint].join('\0')
    const expired = cookie?.failedAt !== undefined && Date.now() - cookie.failedAt > COOKIE_FAILURE_MS
    if (!cookies) throw new RpcError('auth', 'Node RPC cookie authentication is not available here.')
    if (!cookie || cookie.key !== key || expired || (stale && cookie.value === stale)) {
      const entry: { key: string; value: Promise<RpcCookie>; failedAt?: number } = { key, value: cookies(s) }
      entry.value.catch(() => {
        entry.failedAt = Date.now()
      })
      cookie = entry
    }
    return cookie.value
  }

  /** The Authorization header: rpc_password wins; else the cookie when its path is set; else none. */
  async function credentials(s: NodeSettings, stale?: Promise<RpcCookie>) {
    if (!s.rpc_password && s.rpc_cookie_path) {
      const read = readCookie(s, stale)
      const { user, password } = await read
      return { header: basic(user, password), cookie: read }
    }
    if (s.rpc_username || s.rpc_password) return { header: basic(s.rpc_username, s.rpc_password) }
    return {}
  }

  /** One HTTP exchange, timed for the observer once it has started; every method fails with it when it throws. */
  async function exchange(body: unknown, label: string, options: RpcCallOptions, methods: string[]) {
    const s = options.settings ?? (await settings())
    if (!s.rpc_url) throw new RpcError('not-configured', 'Node RPC is not configured: set rpc_url in the settings.')
    if (!observer) return send(body, label, options, s)
    const started = performance.now()
    const observeAll = () => {
      const seconds = (performance.now() - started) / 1000
      for (const method of methods) observer.observe(method, seconds)
    }
    try {
      const reply = await send(body, label, options, s)
      observeAll()
      return reply
    } catch (error) {
      // Anything but an RpcError (a wallet name refused before sending) never reached the node.
      if (error instanceof RpcError) {
        observeAll()
        for (const method of methods) observer.failed(method, error)
      }
      throw error
    }
  }

  /** One HTTP exchange; transport and HTTP-level failures throw, the parsed JSON body is returned. */
  async function send(body: unknown, label: string, options: RpcCallOptions, s: NodeSettings) {
    const wallet = options.wallet ?? s.rpc_wallet
    const url = endpointUrl(s.rpc_url, wallet)
    const where = new URL(url).origin + new URL(url).pathname
    const limit = options.timeoutMs ?? timeoutMs
    const maxBytes = Math.min(options.maxReplyBytes ?? maxReplyBytes, maxReplyBytes)
    const post = async (authorization?: string) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (authorization) headers.authorization = authorization
      try {
        const signal = AbortSignal.timeout(limit)
        const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal, redirect: 'manual' })
        return { status: response.status, text: await readCappedText(response, maxBytes) }
      } catch (error) {
        throw describeFetchFailure(error, where, limit, label)
      }
    }
    let auth = await credentials(s)
    let { status, text } = await post(auth.header)
    if (status === 401 && auth.cookie) {
      // The node restarted and wrote a new cookie: read it once more, and send again if it changed.
      const used = auth.header
      auth = await credentials(s, auth.cookie)
      if (auth.header !== used) ({ status, text } = await post(auth.header))
    }
    if (text === null) throw new RpcError('bad-reply', `Node RPC reply to ${label} exceeded ${maxBytes} bytes.`)
    if (status === 401) {
      const check = auth.cookie
        ? `the cookie in ${s.rpc_cookie_path} was refused (is it this node's?)`
        : 'check rpc_username and rpc_password'
      throw new RpcError('auth', `Node RPC authentication failed (HTTP 401): ${check}.`)
    }
    if (status === 403) {
      throw new RpcError('forbidden', `Node RPC refused ${label} (HTTP 403 forbidden; see the node's -rpcwhitelist).`)
    }
    if (status === 503) {
      const why = text.trim() ? `: ${clip(text.trim(), 200)}` : ''
      throw new RpcError('busy', `Node RPC is busy or shutting down (HTTP 503${why}).`)
    }
    let parsed: unknown
    try {
      parsed = text.trim() ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    // Legacy replies carry errors with HTTP 404/500, JSON-RPC 2.0 ones with 200: the error object decides.
    const single = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ReplyObject) : undefined
    if (single?.error) throw replyError(single.error, label)
    if (status === 200 && parsed !== undefined) return parsed
    if (status === 404) {
      throw new RpcError(
        'http',
        `Node RPC answered HTTP 404 at ${where}: check rpc_url${wallet ? ' and the wallet endpoint' : ''}.`,
      )
    }
    throw new RpcError('bad-reply', `Node RPC answered HTTP ${status} without a JSON-RPC reply for ${label}.`)
  }

  return {
    async call<T>(method: string, params: RpcParams = [], options: RpcCallOptions = {}): Promise<T> {
      const reply = (await exchange({ jsonrpc: '1.0', id: nextId++, method, params }, method, options, [method])) as ReplyObject
      if (reply && typeof reply === 'object' && 'result' in reply) return reply.result as T
      const error = new RpcError('bad-reply', `Node RPC answered without a result for ${method}.`)
      observer?.failed(method, error)
      throw error
    },

    async batch(calls, options = {}) {
      if (calls.length === 0) return []
      const first = nextId
      nextId += calls.length
      const body = calls.map((c, i) => ({ jsonrpc: '1.0', id: first + i, method: c.method, params: c.params ?? [] }))
      const label = `batch(${calls.map((c) => c.method).join(',')})`
      const methods = calls.map((c) => c.method)
      const reply = await exchange(body, label, options, methods)
      if (!Array.isArray(reply)) {
        const error = new RpcError('bad-reply', `Node RPC answered a batch without an array (${label}).`)
        for (const method of methods) observer?.failed(method, error)
        throw error
      }
      const byId = new Map<unknown, ReplyObject>(reply.map((item: ReplyObject) => [item?.id, item]))
      return calls.map((c, i): BatchOutcome => {
        const item = byId.get(first + i)
        const error = !item
          ? new RpcError('bad-reply', `Node RPC batch reply lacks ${c.method}.`)
          : item.error
            ? replyError(item.error, c.method)
            : null
        if (!error) return { ok: true, result: item?.result }
        observer?.failed(c.method, error)
        return { ok: false, error }
      })
    },
  }
}

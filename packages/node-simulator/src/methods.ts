import { type Chain, type WalletState, walletBalances, walletInfo } from './chain.ts'
import { estimateSmartFee, getBlockStats } from './fees.ts'
import { helpListing, helpPage, type NodeVersion } from './help.ts'
import { getRawMempool } from './mempool.ts'
import { isValidAddr, parseNetAddr, parseSubNet, singleSubNet } from './netaddr.ts'
import { typeName, type UniValue, writeIndented } from './univalue.ts'

/** A JSON-RPC error as Core throws it (JSONRPCError). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

// Error codes and texts of src/rpc/protocol.h and wallet/rpc/util.cpp (v30).
export const RPC_MISC_ERROR = -1
export const RPC_TYPE_ERROR = -3
export const RPC_INVALID_PARAMETER = -8
export const RPC_WALLET_NOT_FOUND = -18
export const RPC_WALLET_NOT_SPECIFIED = -19
export const RPC_CLIENT_NODE_ALREADY_ADDED = -23
export const RPC_IN_WARMUP = -28
export const RPC_CLIENT_NODE_NOT_CONNECTED = -29
export const RPC_CLIENT_INVALID_IP_OR_SUBNET = -30
export const RPC_INVALID_REQUEST = -32600
export const RPC_METHOD_NOT_FOUND = -32601
export const RPC_INVALID_PARAMS = -32602
export const RPC_PARSE_ERROR = -32700

const NO_WALLET_LOADED =
  'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)'
const WALLET_NOT_FOUND = 'Requested wallet does not exist or is not loaded'
const MULTIPLE_WALLETS =
  'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.'

export interface ExecContext {
  chain: Chain
  wallets: WalletState[]
  /** The wallet named by a /wallet/<name> path (decoded), or null on "/". */
  walletPath: string | null
  version: NodeVersion
  /** Forks (Dogecoin 1.14-like) lack `uptime`. */
  fork: boolean
  stopMessage: string
  subversion: string
  clientVersion: number
  /** Called after a `stop` reply is decided; the server closes once the reply is out. */
  requestStop(): void
}

/** 'any': the method checks the value itself (Core's skip_type_check, e.g. hash_or_height). */
type ArgType = 'number' | 'string' | 'bool' | 'array' | 'any'
interface Arg {
  name: string
  type: ArgType
  required: boolean
}
interface Method {
  args: Arg[]
  run(ctx: ExecContext, params: unknown[]): UniValue
}

function wallet(ctx: ExecContext): WalletState {
  if (ctx.walletPath !== null) {
    const found = ctx.wallets.find((w) => w.name === ctx.walletPath)
    if (!found) throw new RpcError(RPC_WALLET_NOT_FOUND, WALLET_NOT_FOUND)
    return found
  }
  if (ctx.wallets.length === 1) return ctx.wallets[0]
  if (ctx.wallets.length === 0) throw new RpcError(RPC_WALLET_NOT_FOUND, NO_WALLET_LOADED)
  throw new RpcError(RPC_WALLET_NOT_SPECIFIED, MULTIPLE_WALLETS)
}

const none: Arg[] = []

const fail = (code: number, message: string): never => {
  throw new RpcError(code, message)
}

export const METHODS: Record<string, Method> = {
  help: {
    args: [{ name: 'command', type: 'string', required: false }],
    run(ctx, [command]) {
      const hidden = ctx.fork ? ['uptime'] : []
      if (command === undefined || command === null || command === '') return helpListing(ctx.version, { withoutMethods: hidden })
      const name = String(command)
      const page = hidden.includes(name) ? null : helpPage(ctx.version, name)
      return page ?? `help: unknown command: ${name}`
    },
  },
  // `wait` is a hidden test-only argument of Core's stop.
  stop: {
    args: [{ name: 'wait', type: 'number', required: false }],
    run(ctx) {
      ctx.requestStop()
      return ctx.stopMessage
    },
  },
  uptime: { args: none, run: (ctx) => ctx.chain.uptime() },
  getblockchaininfo: { args: none, run: (ctx) => ctx.chain.getblockchaininfo() },
  getnetworkinfo: { args: none, run: (ctx) => ctx.chain.getnetworkinfo(ctx.subversion, ctx.clientVersion) },
  getnettotals: { args: none, run: (ctx) => ctx.chain.getnettotals() },
  getmempoolinfo: { args: none, run: (ctx) => ctx.chain.getmempoolinfo() },
  getmininginfo: { args: none, run: (ctx) => ctx.chain.getmininginfo() },
  getpeerinfo: { args: none, run: (ctx) => ctx.chain.getpeerinfo() },
  getconnectioncount: { args: none, run: (ctx) => (ctx.chain.getpeerinfo() as unknown[]).length },
  getdifficulty: { args: none, run: () => 4.656542373906925e-10 },
  getblockcount: { args: none, run: (ctx) => ctx.chain.height },
  getbestblockhash: { args: none, run: (ctx) => ctx.chain.tip.hash },
  getblockhash: {
    args: [{ name: 'height', type: 'number', required: true }],
    run(ctx, [height]) {
      if (!Number.isInteger(height)) throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range')
      const hash = ctx.chain.hashAt(height as number)
      if (hash === null) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range')
      return hash
    },
  },
  estimatesmartfee: {
    args: [
      { name: 'conf_target', type: 'number', required: true },
      { name: 'estimate_mode', type: 'string', required: false },
    ],
    run: (ctx, params) => estimateSmartFee(ctx.chain, params, fail),
  },
  getblockstats: {
    args: [
      { name: 'hash_or_height', type: 'any', required: true },
      { name: 'stats', type: 'array', required: false },
    ],
    run: (ctx, params) => getBlockStats(ctx.chain, params, fail),
  },
  getrawmempool: {
    args: [
      { name: 'verbose', type: 'bool', required: false },
      { name: 'mempool_sequence', type: 'bool', required: false },
    ],
    run: (ctx, params) => getRawMempool(ctx.chain, params, fail),
  },
  // src/rpc/net.cpp (v30) from here to clearbanned.
  disconnectnode: {
    args: [
      { name: 'address', type: 'string', required: false },
      { name: 'nodeid', type: 'number', required: false },
    ],
    run(ctx, [address, nodeid]) {
      const absent = (v: unknown) => v === undefined || v === null
      let success: boolean
      if (!absent(address) && absent(nodeid)) success = ctx.chain.peers.disconnectByAddress(address as string)
      else if (!absent(nodeid) && (absent(address) || address === '')) success = ctx.chain.peers.disconnectById(int64(nodeid))
      else throw new RpcError(RPC_INVALID_PARAMS, 'Only one of address and nodeid should be provided.')
      if (!success) throw new RpcError(RPC_CLIENT_NODE_NOT_CONNECTED, 'Node not found in connected nodes')
      return null
    },
  },
  setban: {
    args: [
      { name: 'subnet', type: 'string', required: true },
      { name: 'command', type: 'string', required: true },
      { name: 'bantime', type: 'number', required: false },
      { name: 'absolute', type: 'bool', required: false },
    ],
    run(ctx, [subnetArg, command, bantime, absolute]) {
      // An unknown command is answered with the help text (a runtime_error: RPC_MISC_ERROR).
      if (command !== 'add' && command !== 'remove')
        throw new RpcError(RPC_MISC_ERROR, helpPage(ctx.version, 'setban') ?? 'setban')
      const text = subnetArg as string
      const isSubnet = text.includes('/')
      const subnet = isSubnet ? parseSubNet(text) : null
      const addr = isSubnet ? null : parseNetAddr(text)
      if (isSubnet ? subnet === null : addr === null || !isValidAddr(addr)) {
        throw new RpcError(RPC_CLIENT_INVALID_IP_OR_SUBNET, 'Error: Invalid IP/Subnet')
      }
      const target = subnet ?? singleSubNet(addr!)
      const peers = ctx.chain.peers
      if (command === 'add') {
        if (isSubnet ? peers.isSubNetBanned(target) : peers.isAddressBanned(addr!)) {
          throw new RpcError(RPC_CLIENT_NODE_ALREADY_ADDED, 'Error: IP/Subnet already banned')
        }
        const seconds = bantime === undefined || bantime === null ? 0 : int64(bantime)
        const isAbsolute = absolute === true
        if (isAbsolute && seconds < Math.floor(Date.now() / 1000)) {
          throw new RpcError(RPC_INVALID_PARAMETER, 'Error: Absolute timestamp is in the past')
        }
        peers.ban(target, seconds, isAbsolute)
        peers.disconnectSubNet(target)
      } else if (!peers.unban(target)) {
        throw new RpcError(
          RPC_CLIENT_INVALID_IP_OR_SUBNET,
          'Error: Unban failed. Requested address/subnet was not previously manually banned.',
        )
      }
      return null
    },
  },
  listbanned: { args: none, run: (ctx) => ctx.chain.peers.listBans() },
  clearbanned: {
    args: none,
    run(ctx) {
      ctx.chain.peers.clearBans()
      return null
    },
  },
  getwalletinfo: { args: none, run: (ctx) => walletInfo(wallet(ctx), ctx.chain, ctx.version) },
  getbalances: { args: none, run: (ctx) => walletBalances(wallet(ctx), ctx.chain) },
}

/** UniValue::getInt<int64_t>: a number that is not an integer in range throws like Core. */
function int64(value: unknown): number {
  if (!Number.isSafeInteger(value)) throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range')
  return value as number
}

/** Methods this simulator answers for a node of the given kind (the rest get "Method not found"). */
export function hasMethod(name: string, fork: boolean): boolean {
  return Object.hasOwn(METHODS, name) && !(fork && name === 'uptime')
}

/** Core's transformNamedArguments: {"height":0} -> [0]; unknown names are refused. */
function positional(method: Method, params: unknown[] | Record<string, unknown>): unknown[] {
  if (Array.isArray(params)) return params
  const names = new Set(method.args.map((a) => a.name))
  for (const key of Object.keys(params)) {
    if (!names.has(key)) throw new RpcError(RPC_INVALID_PARAMETER, `Unknown named parameter ${key}`)
  }
  const out: unknown[] = []
  method.args.forEach((arg, i) => {
    if (Object.hasOwn(params, arg.name)) {
      while (out.length < i) out.push(null)
      out.push(params[arg.name])
    }
  })
  return out
}

/** CRPCTable::execute + RPCHelpMan::HandleRequest: warm-up first, then lookup, arg count, arg types. */
export function execute(
  ctx: ExecContext,
  warmup: string | null,
  name: string,
  params: unknown[] | Record<string, unknown>,
): UniValue {
  if (warmup !== null) throw new RpcError(RPC_IN_WARMUP, warmup)
  if (!hasMethod(name, ctx.fork)) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found')
  const method = METHODS[name]
  const args = positional(method, params)
  const required = method.args.filter((a) => a.required).length
  if (args.length < required || args.length > method.args.length) {
    // Core throws its help text as a runtime_error, which ExecuteCommand turns into RPC_MISC_ERROR.
    throw new RpcError(RPC_MISC_ERROR, helpPage(ctx.version, name) ?? name)
  }
  const mismatch: Record<string, string> = {}
  method.args.forEach((arg, i) => {
    const value = args[i]
    if ((value === undefined || value === null) && !arg.required) return
    if (arg.type === 'any') return
    if (typeName(value) !== arg.type) {
      mismatch[`Position ${i + 1} (${arg.name})`] = `JSON value of type ${typeName(value)} is not of expected type ${arg.type}`
    }
  })
  if (Object.keys(mismatch).length > 0) {
    throw new RpcError(RPC_TYPE_ERROR, `Wrong type passed:\n${writeIndented(mismatch)}`)
  }
  return method.run(ctx, args)
}

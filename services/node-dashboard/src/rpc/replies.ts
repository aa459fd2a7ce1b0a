import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'
import { RpcError } from './errors.ts'

const count = () => Type.Integer({ minimum: 0 })

/**
 * The results the dashboard itself reads, as Core (and forks) answer them: only the fields it uses,
 * every other field allowed and passed on. Fields newer than Dogecoin 1.14 (Core 0.14) are optional.
 */
export const NodeReplies = {
  getblockchaininfo: Type.Object({
    chain: Type.String(),
    blocks: count(),
    headers: count(),
    bestblockhash: Type.String(),
    difficulty: Type.Number(),
    verificationprogress: Type.Number(),
    initialblockdownload: Type.Optional(Type.Boolean()),
  }),
  getnetworkinfo: Type.Object({
    version: count(),
    subversion: Type.String(),
    connections: count(),
    connections_in: Type.Optional(count()),
    connections_out: Type.Optional(count()),
  }),
  getnettotals: Type.Object({ totalbytesrecv: count(), totalbytessent: count() }),
  getmempoolinfo: Type.Object({ size: count(), bytes: count(), usage: count() }),
  getmininginfo: Type.Object({ networkhashps: Type.Number(), difficulty: Type.Number() }),
  uptime: count(),
  getwalletinfo: Type.Object({ walletname: Type.Optional(Type.String()), balance: Type.Optional(Type.Number()) }),
  getbalances: Type.Object({ mine: Type.Object({ trusted: Type.Number() }) }),
  // `network` and `connection_type` arrived in Core 0.21; older nodes and forks lack them.
  getpeerinfo: Type.Array(
    Type.Object({
      id: count(),
      addr: Type.String(),
      inbound: Type.Boolean(),
      network: Type.Optional(Type.String()),
      connection_type: Type.Optional(Type.String()),
      subver: Type.Optional(Type.String()),
      version: Type.Optional(Type.Integer()),
      services: Type.Optional(Type.String()),
      servicesnames: Type.Optional(Type.Array(Type.String())),
      pingtime: Type.Optional(Type.Number()),
      minping: Type.Optional(Type.Number()),
      bytessent: Type.Optional(count()),
      bytesrecv: Type.Optional(count()),
      conntime: Type.Optional(Type.Integer()),
      synced_blocks: Type.Optional(Type.Integer()),
      synced_headers: Type.Optional(Type.Integer()),
      startingheight: Type.Optional(Type.Integer()),
      transport_protocol_type: Type.Optional(Type.String()),
    }),
  ),
  listbanned: Type.Array(
    Type.Object({
      address: Type.String(),
      ban_created: Type.Integer(),
      banned_until: Type.Integer(),
    }),
  ),
  // feerate in BTC/kvB; errors instead of it when the node has no estimate.
  estimatesmartfee: Type.Object({
    feerate: Type.Optional(Type.Number()),
    errors: Type.Optional(Type.Array(Type.String())),
    blocks: Type.Integer(),
  }),
  getblockcount: count(),
  getbestblockhash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  getblockhash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  // The statistics the blocks screen asks for (sizes and fees in bytes, weight units and satoshis; rates in sat/vB).
  getblockstats: Type.Object({
    blockhash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    height: count(),
    time: count(),
    txs: count(),
    total_size: count(),
    total_weight: count(),
    totalfee: count(),
    avgfeerate: Type.Number({ minimum: 0 }),
    feerate_percentiles: Type.Array(Type.Number({ minimum: 0 }), { minItems: 5, maxItems: 5 }),
  }),
  // Verbose: txid -> entry; the distribution reads each entry's vsize and base fee (BTC).
  getrawmempool: Type.Record(
    Type.String(),
    Type.Object({ vsize: count(), fees: Type.Object({ base: Type.Number({ minimum: 0 }) }) }),
  ),
  help: Type.String(),
  // Core says "Bitcoin Core stopping"; forks name themselves.
  stop: Type.String(),
} satisfies Record<string, TSchema>

export type CheckedMethod = keyof typeof NodeReplies
export type NodeReply<M extends CheckedMethod> = Static<(typeof NodeReplies)[M]>

const checks = Object.fromEntries(
  Object.entries(NodeReplies).map(([method, schema]) => [method, TypeCompiler.Compile(schema)]),
) as { [M in CheckedMethod]: TypeCheck<(typeof NodeReplies)[M]> }

/**
 * The result of `method` if it has the shape the dashboard relies on; otherwise an RpcError (502) naming
 * the method and the first misfit field, never the value (it could be huge or carry anything).
 */
export function checkedReply<M extends CheckedMethod>(method: M, result: unknown): NodeReply<M> {
  const check = checks[method] as TypeCheck<TSchema>
  if (check.Check(result)) return result as NodeReply<M>
  const first = check.Errors(result).First()
  const field = first?.path ? `${first.path.slice(1).replaceAll('/', '.')}: ` : ''
  throw new RpcError(
    'bad-reply',
    `Node answered ${method} with an unexpected shape (${field}${first?.message ?? 'does not match'}).`,
  )
}

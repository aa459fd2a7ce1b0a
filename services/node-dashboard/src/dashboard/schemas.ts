import { Type } from '@sinclair/typebox'
import { PeerCountsSchema } from '../peers/schemas.ts'

// Node results pass through whole (their fields vary by version and fork); the common ones are named.
const open = { additionalProperties: true }
const num = () => Type.Optional(Type.Number())

export const SummaryResponse = Type.Object({
  chain: Type.Object(
    {
      chain: Type.Optional(Type.String()),
      blocks: num(),
      headers: num(),
      bestblockhash: Type.Optional(Type.String()),
      difficulty: num(),
      verificationprogress: num(),
      initialblockdownload: Type.Optional(Type.Boolean()),
    },
    { ...open, description: 'getblockchaininfo' },
  ),
  network: Type.Object(
    {
      version: num(),
      subversion: Type.Optional(Type.String()),
      connections: num(),
      connections_in: num(),
      connections_out: num(),
      totalbytesrecv: num(),
      totalbytessent: num(),
    },
    { ...open, description: 'getnetworkinfo merged with getnettotals' },
  ),
  mempool: Type.Object({ size: num(), bytes: num(), usage: num() }, { ...open, description: 'getmempoolinfo' }),
  mining: Type.Object({ networkhashps: num(), difficulty: num() }, { ...open, description: 'getmininginfo' }),
  uptime: Type.Union([Type.Integer(), Type.Null()], { description: 'seconds; null when the node has no uptime method' }),
  wallet: Type.Union([Type.Object({ walletname: Type.Optional(Type.String()) }, open), Type.Null()], {
    description: 'getwalletinfo plus balances (getbalances); null without rpc_wallet',
  }),
  wallet_error: Type.Union([Type.String(), Type.Null()], { description: 'why wallet is null although rpc_wallet is set' }),
  peers: Type.Union([PeerCountsSchema, Type.Null()], {
    description: 'connected peers by direction and by network (getpeerinfo); null when that call failed',
  }),
  peers_error: Type.Union([Type.String(), Type.Null()], { description: 'why peers is null' }),
  fee_estimates: Type.Union(
    [
      Type.Array(
        Type.Object({
          conf_target: Type.Integer({ description: 'the confirmation target asked for (1, 3, 6, 12 or 144 blocks)' }),
          feerate: Type.Union([Type.Number(), Type.Null()], {
            description: 'BTC/kvB as the node answered; null without an estimate',
          }),
          sat_per_vb: Type.Union([Type.Number(), Type.Null()], { description: 'the same rate in sat/vB' }),
          blocks: Type.Union([Type.Integer(), Type.Null()], {
            description: 'the target the estimate is for (the node clamps it); null when the call failed',
          }),
          errors: Type.Array(Type.String(), {
            description: 'why there is no estimate, e.g. "Insufficient data or no feerate found" on a fresh node',
          }),
        }),
      ),
      Type.Null(),
    ],
    { description: 'estimatesmartfee for 1, 3, 6, 12 and 144 blocks (an extension); null when the node lacks the method' },
  ),
  updated_at: Type.String({ format: 'date-time' }),
  demo_node: Type.Boolean({ description: 'true when this is the simulated demo node the dashboard runs itself (DEMO_NODE)' }),
})

import { Type } from '@sinclair/typebox'
import { MAX_BAN_ADDRESS_LENGTH } from './address.ts'
import { PEER_NETWORKS } from './counts.ts'

const count = (description: string) => Type.Integer({ minimum: 0, description })
const nullable = <T extends ReturnType<typeof Type.String | typeof Type.Number | typeof Type.Integer>>(
  schema: T,
  description: string,
) => Type.Union([schema, Type.Null()], { description })

const DirectionCountsSchema = Type.Object(
  { inbound: count('peers that connected to the node'), outbound: count('peers the node connected to') },
  { additionalProperties: false },
)

export const PeerCountsSchema = Type.Object(
  {
    total: count('connected peers'),
    inbound: count('inbound peers'),
    outbound: count('outbound peers (every connection type but inbound)'),
    by_network: Type.Object(Object.fromEntries(PEER_NETWORKS.map((n) => [n, DirectionCountsSchema])), {
      additionalProperties: false,
      description: 'peers per network as the node names it; `other` holds peers of a network the node did not name',
    }),
  },
  { additionalProperties: false },
)

export const PeerSchema = Type.Object(
  {
    id: count("the node's peer id (what disconnect takes)"),
    address: Type.String({ description: 'host:port as the node shows it' }),
    direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
    connection_type: nullable(
      Type.String(),
      'outbound-full-relay, block-relay-only, inbound, manual, addr-fetch, feeler; null on nodes before Core 0.21',
    ),
    network: Type.Union(
      PEER_NETWORKS.map((n) => Type.Literal(n)),
      { description: 'ipv4, ipv6, onion, i2p, cjdns, not_publicly_routable, or other' },
    ),
    subversion: Type.String({ description: 'the user agent the peer announced (clipped to 256 characters)' }),
    version: nullable(Type.Integer(), "the peer's protocol version"),
    services: Type.String({ description: 'service bits, hex' }),
    services_names: Type.Array(Type.String(), { description: 'the service bits the node recognises' }),
    ping_seconds: nullable(Type.Number(), 'last ping round trip; null before the first pong'),
    min_ping_seconds: nullable(Type.Number(), 'lowest ping round trip seen'),
    bytes_sent: nullable(Type.Integer({ minimum: 0 }), 'bytes sent to the peer'),
    bytes_received: nullable(Type.Integer({ minimum: 0 }), 'bytes received from the peer'),
    connected_since: nullable(Type.String({ format: 'date-time' }), 'when the connection was made'),
    synced_height: nullable(Type.Integer(), 'the last block the node and the peer have in common; null when unknown (-1)'),
    synced_headers: nullable(Type.Integer(), 'the last header in common; null when unknown (-1)'),
    starting_height: nullable(Type.Integer(), 'the height the peer announced when it connected'),
    transport: nullable(Type.String(), 'v1, v2 (BIP324 encrypted) or detecting'),
  },
  { additionalProperties: false },
)

export const PeersResponse = Type.Object(
  {
    peers: Type.Array(PeerSchema, { description: 'ordered by id; at most `limit`' }),
    limit: count('the most peers one answer lists'),
    truncated: Type.Boolean({ description: 'true when the node has more peers than `limit` (the counts still cover all)' }),
    counts: PeerCountsSchema,
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)

export const BanSchema = Type.Object(
  {
    address: Type.String({ description: 'the banned IP/subnet as the node writes it (always with its prefix)' }),
    ban_created: Type.String({ format: 'date-time' }),
    banned_until: Type.String({ format: 'date-time' }),
    ban_duration_seconds: Type.Integer(),
    time_remaining_seconds: Type.Integer(),
  },
  { additionalProperties: false },
)

export const BansResponse = Type.Object(
  {
    bans: Type.Array(BanSchema, { description: "in the node's order; at most `limit`" }),
    limit: count('the most bans one answer lists'),
    truncated: Type.Boolean(),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)

const BanAddress = Type.String({
  minLength: 1,
  maxLength: MAX_BAN_ADDRESS_LENGTH,
  description: 'an IPv4 or IPv6 address, optionally with a /prefix (a subnet)',
  examples: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'],
})

/** The longest ban: ten years (Core takes any int64; a longer one is surely a typing slip). */
export const MAX_BAN_SECONDS = 10 * 365 * 24 * 60 * 60

export const DisconnectBody = Type.Object(
  { id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'the peer id from GET /api/peers' }) },
  { additionalProperties: false },
)

export const BanBody = Type.Object(
  {
    address: BanAddress,
    duration_seconds: Type.Integer({ minimum: 1, maximum: MAX_BAN_SECONDS, description: 'how long the ban lasts' }),
  },
  { additionalProperties: false },
)

export const UnbanBody = Type.Object({ address: BanAddress }, { additionalProperties: false })

export const PeerActionResult = Type.Object(
  {
    ok: Type.Literal(true),
    action: Type.Union([Type.Literal('disconnect'), Type.Literal('ban'), Type.Literal('unban'), Type.Literal('clear-bans')]),
    target: Type.Union([Type.String(), Type.Null()], { description: 'the peer id or the address acted on; null for clear-bans' }),
  },
  { additionalProperties: false },
)

import { Type } from '@sinclair/typebox'
import { PEER_NETWORKS } from './counts.ts'

const count = (description: string) => Type.Integer({ minimum: 0, description })

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

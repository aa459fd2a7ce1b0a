import type { NodeReply } from '../rpc/replies.ts'

/** Core's network names (GetNetworkName); anything else, or none (nodes before 0.21), counts as `other`. */
export const PEER_NETWORKS = ['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns', 'not_publicly_routable', 'other'] as const
export type PeerNetwork = (typeof PEER_NETWORKS)[number]

export interface DirectionCounts {
  inbound: number
  outbound: number
}

export interface PeerCounts extends DirectionCounts {
  total: number
  /** Every network is present (0 when none), so a chart or a metric series never disappears. */
  by_network: Record<PeerNetwork, DirectionCounts>
}

const known = new Set<string>(PEER_NETWORKS)

export function networkOf(peer: { network?: string }): PeerNetwork {
  return peer.network !== undefined && known.has(peer.network) ? (peer.network as PeerNetwork) : 'other'
}

/** Connected peers counted by direction and by network, from one getpeerinfo answer. */
export function countPeers(peers: NodeReply<'getpeerinfo'>): PeerCounts {
  const byNetwork = Object.fromEntries(PEER_NETWORKS.map((n) => [n, { inbound: 0, outbound: 0 }])) as Record<
    PeerNetwork,
    DirectionCounts
  >
  let inbound = 0
  for (const peer of peers) {
    const direction = peer.inbound ? 'inbound' : 'outbound'
    byNetwork[networkOf(peer)][direction]++
    if (peer.inbound) inbound++
  }
  return { total: peers.length, inbound, outbound: peers.length - inbound, by_network: byNetwork }
}

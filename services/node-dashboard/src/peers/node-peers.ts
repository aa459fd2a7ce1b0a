import type { RpcClient } from '../rpc/client.ts'
import { checkedReply, type NodeReply } from '../rpc/replies.ts'
import type { NodeSettings } from '../settings/repository.ts'

/**
 * A getpeerinfo answer above this is refused (a Core peer entry is 2-3 kB, so about 5,000 peers; Core's
 * default is at most 125 connections).
 */
export const MAX_PEER_INFO_BYTES = 16 * 1024 * 1024

/** The node's getpeerinfo, checked for the fields the dashboard reads (the rest passes through). */
export async function readPeerInfo(rpc: RpcClient, settings?: NodeSettings): Promise<NodeReply<'getpeerinfo'>> {
  const result = await rpc.call('getpeerinfo', [], { settings, wallet: '', maxReplyBytes: MAX_PEER_INFO_BYTES })
  return checkedReply('getpeerinfo', result)
}

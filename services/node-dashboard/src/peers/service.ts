/**
 * Peer use cases: read the peers and bans, and the four changes (disconnect, ban, unban, clear bans),
 * each audited with who did it, what it targeted and how it ended. Node errors become the documented
 * statuses (404 not connected / not banned, 409 already banned, 422 refused address); the rest stay 502.
 */
import { HttpError } from '@app/common'
import type { Static } from '@sinclair/typebox'
import type { AuditRepository } from '../audit/repository.ts'
import { type ActionOutcome, actionOutcome } from '../prometheus/registry.ts'
import type { RpcClient } from '../rpc/client.ts'
import { isRpcError } from '../rpc/errors.ts'
import { checkedReply, type NodeReply } from '../rpc/replies.ts'
import { banAddressProblem } from './address.ts'
import { countPeers, networkOf } from './counts.ts'
import { MAX_PEER_INFO_BYTES, readPeerInfo } from './node-peers.ts'
import type { BansResponse, PeerActionResult, PeerSchema, PeersResponse } from './schemas.ts'

/** The most peers (and bans) one answer lists; counts still cover every peer. */
export const MAX_PEERS_LISTED = 1000
export const MAX_BANS_LISTED = 1000
const MAX_SUBVERSION_CHARS = 256

// Core's error codes (src/rpc/protocol.h).
const NODE_ALREADY_ADDED = -23
const NODE_NOT_CONNECTED = -29
const INVALID_IP_OR_SUBNET = -30
const INVALID_PARAMETER = -8

export interface PeerDeps {
  rpc: RpcClient
  audit: AuditRepository
  log: { warn: (obj: unknown, msg?: string) => void }
  /** Counts each change by outcome (node_dashboard_actions_total). */
  recordAction: (action: `peers:${PeerAction}`, outcome: ActionOutcome) => void
}

type PeerAction = Static<typeof PeerActionResult>['action']

const orNull = <T>(value: T | undefined) => (value === undefined ? null : value)
const known = (height: number | undefined) => (height === undefined || height < 0 ? null : height)

function peerRow(p: NodeReply<'getpeerinfo'>[number]): Static<typeof PeerSchema> {
  return {
    id: p.id,
    address: p.addr,
    direction: p.inbound ? 'inbound' : 'outbound',
    connection_type: orNull(p.connection_type),
    network: networkOf(p),
    subversion: (p.subver ?? '').slice(0, MAX_SUBVERSION_CHARS),
    version: orNull(p.version),
    services: p.services ?? '',
    services_names: p.servicesnames ?? [],
    ping_seconds: orNull(p.pingtime),
    min_ping_seconds: orNull(p.minping),
    bytes_sent: orNull(p.bytessent),
    bytes_received: orNull(p.bytesrecv),
    connected_since: p.conntime === undefined ? null : new Date(p.conntime * 1000).toISOString(),
    synced_height: known(p.synced_blocks),
    synced_headers: known(p.synced_headers),
    starting_height: orNull(p.startingheight),
    transport: orNull(p.transport_protocol_type),
  }
}

export async function listPeers(deps: PeerDeps): Promise<Static<typeof PeersResponse>> {
  const info = await readPeerInfo(deps.rpc)
  const sorted = [...info].sort((a, b) => a.id - b.id)
  return {
    peers: sorted.slice(0, MAX_PEERS_LISTED).map(peerRow),
    limit: MAX_PEERS_LISTED,
    truncated: sorted.length > MAX_PEERS_LISTED,
    counts: countPeers(info),
    updated_at: new Date().toISOString(),
  }
}

export async function listBans(deps: PeerDeps): Promise<Static<typeof BansResponse>> {
  const reply = await deps.rpc.call('listbanned', [], { wallet: '', maxReplyBytes: MAX_PEER_INFO_BYTES })
  const bans = checkedReply('listbanned', reply)
  const now = Math.floor(Date.now() / 1000)
  return {
    bans: bans.slice(0, MAX_BANS_LISTED).map((b) => ({
      address: b.address,
      ban_created: new Date(b.ban_created * 1000).toISOString(),
      banned_until: new Date(b.banned_until * 1000).toISOString(),
      ban_duration_seconds: b.banned_until - b.ban_created,
      time_remaining_seconds: b.banned_until - now,
    })),
    limit: MAX_BANS_LISTED,
    truncated: bans.length > MAX_BANS_LISTED,
    updated_at: new Date().toISOString(),
  }
}

/** Runs one node change, maps the node's refusals, and writes the audit row either way. */
async function change(
  deps: PeerDeps,
  username: string | null,
  action: PeerAction,
  target: string | null,
  // Runs inside the audit and the count, so a refused address (422) is recorded like the node's refusals.
  run: () => Promise<unknown>,
  refusal: (code: number | undefined) => HttpError | null,
  done: string,
): Promise<Static<typeof PeerActionResult>> {
  const audit = (ok: boolean, outcome: string) =>
    deps.audit.record({ username, kind: 'action', name: `peers:${action}`, ok, outcome }).catch((error) => {
      deps.log.warn({ err: error }, 'peer action audit failed')
    })
  try {
    await run()
  } catch (error) {
    const mapped = isRpcError(error, 'rpc') ? refusal(error.rpcCode) : null
    const failure = mapped ?? error
    await audit(false, failure instanceof HttpError ? failure.message : 'internal error')
    deps.recordAction(`peers:${action}`, actionOutcome(failure instanceof HttpError ? failure.statusCode : 500))
    throw failure
  }
  await audit(true, done)
  deps.recordAction(`peers:${action}`, 'ok')
  return { ok: true, action, target }
}

export function disconnectPeer(deps: PeerDeps, username: string | null, id: number) {
  return change(
    deps,
    username,
    'disconnect',
    String(id),
    () => deps.rpc.call('disconnectnode', ['', id], { wallet: '' }),
    (code) => (code === NODE_NOT_CONNECTED ? new HttpError(404, `Peer ${id} is not connected (any more).`) : null),
    `disconnected peer ${id}`,
  )
}

function checkedAddress(address: string): string {
  const problem = banAddressProblem(address)
  if (problem) throw new HttpError(422, `body/address: ${problem}.`)
  return address
}

export function banAddress(deps: PeerDeps, username: string | null, address: string, seconds: number) {
  const target = address
  return change(
    deps,
    username,
    'ban',
    target,
    () => deps.rpc.call('setban', [checkedAddress(target), 'add', seconds, false], { wallet: '' }),
    (code) => {
      if (code === NODE_ALREADY_ADDED) return new HttpError(409, `${target} is already banned (alone or inside a banned subnet).`)
      if (code === INVALID_IP_OR_SUBNET || code === INVALID_PARAMETER) {
        return new HttpError(422, `body/address: the node refuses ${target} as an IP/subnet to ban.`)
      }
      return null
    },
    `banned ${target} for ${seconds} s`,
  )
}

export function unbanAddress(deps: PeerDeps, username: string | null, address: string) {
  const target = address
  return change(
    deps,
    username,
    'unban',
    target,
    () => deps.rpc.call('setban', [checkedAddress(target), 'remove'], { wallet: '' }),
    (code) =>
      code === INVALID_IP_OR_SUBNET
        ? new HttpError(404, `${target} is not banned (a ban is lifted by its exact address or subnet, as listed).`)
        : null,
    `unbanned ${target}`,
  )
}

export function clearBans(deps: PeerDeps, username: string | null) {
  return change(
    deps,
    username,
    'clear-bans',
    null,
    () => deps.rpc.call('clearbanned', [], { wallet: '' }),
    () => null,
    'cleared all bans',
  )
}

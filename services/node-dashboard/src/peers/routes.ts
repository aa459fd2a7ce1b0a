import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sessionUser } from '../auth/plugin.ts'
import { described, errorAnswer, errorResponse } from '../schemas.ts'
import { BanBody, BansResponse, DisconnectBody, PeerActionResult, PeersResponse, UnbanBody } from './schemas.ts'
import {
  banAddress,
  clearBans,
  disconnectPeer,
  listBans,
  listPeers,
  MAX_BANS_LISTED,
  MAX_PEERS_LISTED,
  type PeerDeps,
  unbanAddress,
} from './service.ts'

const done = (what: string) => described(PeerActionResult, what)

export const peerRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const deps: PeerDeps = {
    rpc: fastify.rpc,
    audit: fastify.audit,
    log: fastify.log,
    recordAction: (action, outcome) => fastify.prometheus.recordAction(action, outcome),
  }
  const tags = ['peers']

  fastify.get(
    '/api/peers',
    {
      config: { auth: true },
      schema: {
        operationId: 'listPeers',
        summary: "The node's connected peers (getpeerinfo, summarised)",
        description: `At most ${MAX_PEERS_LISTED} peers, by id (\`truncated\` says when there are more; \`counts\` covers all).`,
        tags,
        response: { 200: described(PeersResponse, 'The peers, read now.'), ...errorResponse(400, 401, 502) },
      },
    },
    async () => listPeers(deps),
  )

  fastify.get(
    '/api/peers/bans',
    {
      config: { auth: true },
      schema: {
        operationId: 'listBans',
        summary: 'Banned addresses and subnets (listbanned)',
        description: `At most ${MAX_BANS_LISTED} entries.`,
        tags,
        response: { 200: described(BansResponse, 'The bans, read now.'), ...errorResponse(400, 401, 502) },
      },
    },
    async () => listBans(deps),
  )

  fastify.post(
    '/api/peers/disconnect',
    {
      config: { auth: true },
      schema: {
        operationId: 'disconnectPeer',
        summary: 'Disconnect one peer by id (disconnectnode)',
        description: 'Audited. The node may connect to other peers in its place; a banned address cannot come back.',
        tags,
        body: DisconnectBody,
        response: {
          200: done('The node dropped the peer.'),
          ...errorResponse(400, 401, 403, 422, 502),
          404: errorAnswer('No peer with that id is connected.'),
        },
      },
    },
    async (request) => disconnectPeer(deps, sessionUser(request), request.body.id),
  )

  fastify.post(
    '/api/peers/bans',
    {
      config: { auth: true },
      schema: {
        operationId: 'banAddress',
        summary: 'Ban an IP address or subnet for a time (setban add)',
        description: 'Audited. The node also disconnects every peer inside the banned address or subnet.',
        tags,
        body: BanBody,
        response: {
          200: done('Banned.'),
          ...errorResponse(400, 401, 403, 502),
          409: errorAnswer('The address is already banned, alone or inside a banned subnet.'),
          422: errorAnswer('The address is not an IPv4/IPv6 address or subnet, or the duration is out of range.'),
        },
      },
    },
    async (request) => banAddress(deps, sessionUser(request), request.body.address, request.body.duration_seconds),
  )

  fastify.post(
    '/api/peers/bans/remove',
    {
      config: { auth: true },
      schema: {
        operationId: 'unbanAddress',
        summary: 'Lift one ban (setban remove)',
        description:
          'Audited. Takes the address or subnet exactly as listed (an address inside a banned subnet is not a ban of its own).',
        tags,
        body: UnbanBody,
        response: {
          200: done('The ban is lifted.'),
          ...errorResponse(400, 401, 403, 422, 502),
          404: errorAnswer('That address or subnet is not banned.'),
        },
      },
    },
    async (request) => unbanAddress(deps, sessionUser(request), request.body.address),
  )

  fastify.post(
    '/api/peers/bans/clear',
    {
      config: { auth: true },
      schema: {
        operationId: 'clearBans',
        summary: 'Lift every ban (clearbanned)',
        description: 'Audited.',
        tags,
        response: { 200: done('No bans are left.'), ...errorResponse(400, 401, 403, 502) },
      },
    },
    async (request) => clearBans(deps, sessionUser(request)),
  )
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ActionPhaseSchema } from '../actions/schemas.ts'
import type { Config } from '../config.ts'
import { described, errorResponse } from '../schemas.ts'
import { readNodeState } from './state.ts'

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const NodeStateResponse = Type.Object({
  state: Type.Union(
    ['running', 'warming_up', 'stopping', 'stopped', 'unreachable', 'unknown'].map((state) => Type.Literal(state)),
  ),
  message: nullable(Type.String({ description: 'warming_up: bitcoind\'s status (e.g. "Loading block index…"); otherwise why' })),
  blocks: nullable(Type.Integer()),
  verification_progress: nullable(Type.Number({ description: 'getblockchaininfo verificationprogress (0..1)' })),
  initial_block_download: nullable(Type.Boolean()),
  checked_at: Type.String({ format: 'date-time' }),
  action: nullable(
    Type.Object({
      action: Type.String(),
      started_at: Type.String({ format: 'date-time' }),
      phases: Type.Array(ActionPhaseSchema),
    }),
  ),
})

export const lifecycleRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  fastify.get(
    '/api/node/state',
    {
      config: { auth: true },
      schema: {
        operationId: 'getNodeState',
        summary: "The node's lifecycle state and the running action's phases",
        description:
          'One getblockchaininfo call (at most RPC_TIMEOUT_MS): running; warming_up (error -28, its message); a refused ' +
          'connection is stopping (for 10 s after an accepted stop, or while a restart waits for the old process), stopped ' +
          '(after that, or after a start that the dashboard saw fail) or unreachable; a timeout is unreachable; no rpc_url or another error is unknown. Never 502: a down node is a state.',
        tags: ['actions'],
        response: { 200: described(NodeStateResponse, 'The state now.'), ...errorResponse(401) },
      },
    },
    async () => readNodeState({ rpc: fastify.rpc, actions: fastify.nodeActions, timeoutMs: config.RPC_TIMEOUT_MS }),
  )
}

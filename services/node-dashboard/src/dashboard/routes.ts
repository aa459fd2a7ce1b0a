import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponse } from '../schemas.ts'
import { SummaryResponse } from './schemas.ts'

export const dashboardRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get(
    '/api/dashboard/summary',
    {
      config: { auth: true },
      schema: {
        summary: 'Chain, network, mempool, mining, uptime and wallet state of the node',
        description:
          'One round of concurrent RPC calls, shared by concurrent requests. 400 without rpc_url; 502 when the node fails ' +
          'or answers a method with an unexpected shape (the detail names the method).',
        tags: ['dashboard'],
        response: { 200: SummaryResponse, ...errorResponse(400, 401, 502) },
      },
    },
    async () => fastify.nodeSummary(),
  )
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { described, errorResponse } from '../schemas.ts'
import { SummaryResponse } from './schemas.ts'

export const dashboardRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get(
    '/api/dashboard/summary',
    {
      config: { auth: true },
      schema: {
        operationId: 'getDashboardSummary',
        summary: 'Chain, network, mempool, mining, uptime and wallet state of the node',
        description:
          'One round of concurrent RPC calls, shared by concurrent requests. 400 without rpc_url; 502 when the node fails ' +
          'or answers a method with an unexpected shape (the detail names the method).',
        tags: ['dashboard'],
        response: { 200: described(SummaryResponse, 'The node state, read now.'), ...errorResponse(400, 401, 502) },
      },
    },
    async () => ({ ...(await fastify.nodeSummary()), demo_node: fastify.demoNode.current() !== null }),
  )
}

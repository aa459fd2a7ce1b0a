import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'

export const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get(
    '/api/health',
    {
      schema: {
        summary: 'Liveness',
        tags: ['health'],
        response: { 200: Type.Object({ ok: Type.Literal(true) }) },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store')
      return { ok: true as const }
    },
  )
}

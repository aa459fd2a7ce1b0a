import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { described, errorAnswer, errorResponse } from '../schemas.ts'
import { MAX_BLOCKS } from './recent-blocks.ts'
import { BlocksQuery, BlocksResponse, DEFAULT_BLOCKS, MempoolFeesResponse } from './schemas.ts'

export const blocksRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get(
    '/api/blocks',
    {
      config: { auth: true },
      schema: {
        operationId: 'getRecentBlocks',
        summary: 'The last blocks with their size, weight and fees',
        description:
          `The last count blocks (1..${MAX_BLOCKS}, default ${DEFAULT_BLOCKS}), newest first, from getblockstats. Blocks are ` +
          'cached by hash: while the tip stays, a request costs one small batch (getblockcount, getbestblockhash); when ' +
          'it moves, one batch of getblockhash and one of getblockstats for the new blocks only. 502 when the node fails ' +
          '(e.g. a pruned block or a node without getblockstats; the detail says so).',
        tags: ['blocks'],
        querystring: BlocksQuery,
        response: {
          200: described(BlocksResponse, 'The last blocks, newest first.'),
          ...errorResponse(400, 401, 502),
          422: errorAnswer(`count is not an integer in 1..${MAX_BLOCKS}.`),
        },
      },
    },
    async (request) => fastify.recentBlocks(request.query.count ?? DEFAULT_BLOCKS),
  )

  fastify.get(
    '/api/mempool/fees',
    {
      config: { auth: true },
      schema: {
        operationId: 'getMempoolFeeDistribution',
        summary: 'The mempool’s fee-rate distribution',
        description:
          'Transactions and vbytes per fee-rate bucket (sat/vB) from getrawmempool (verbose), fetched only while the ' +
          'mempool holds at most MEMPOOL_FEES_MAX_TXS transactions (else state too-large, after one getmempoolinfo) and ' +
          'at most once per MEMPOOL_FEES_MIN_SECONDS: requests in between get the same answer without a node call.',
        tags: ['blocks'],
        response: {
          200: described(MempoolFeesResponse, 'The distribution, or too-large.'),
          ...errorResponse(400, 401, 502),
        },
      },
    },
    async () => fastify.mempoolFees(),
  )
}

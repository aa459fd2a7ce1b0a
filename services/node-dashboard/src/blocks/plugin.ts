import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { createMempoolFees, type MempoolFeesReader } from './mempool-fees.ts'
import { createRecentBlocks, type RecentBlocksReader } from './recent-blocks.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The last blocks with their fee statistics, cached by hash (see recent-blocks.ts). */
    recentBlocks: RecentBlocksReader
    /** The mempool fee-rate distribution, bounded in size and frequency (see mempool-fees.ts). */
    mempoolFees: MempoolFeesReader
  }
}

/** Decorates the blocks and mempool-fee readers; their caches live as long as the instance. */
export const blocksPlugin = fp(
  async function blocksPlugin(fastify: FastifyInstance, { config }: { config: Config }) {
    const settings = () => fastify.settingsCache.get()
    fastify.decorate('recentBlocks', createRecentBlocks(fastify.rpc, settings))
    fastify.decorate(
      'mempoolFees',
      createMempoolFees(fastify.rpc, settings, {
        maxTransactions: config.MEMPOOL_FEES_MAX_TXS,
        minIntervalSeconds: config.MEMPOOL_FEES_MIN_SECONDS,
      }),
    )
  },
  { name: 'dashboard-blocks', dependencies: ['dashboard-rpc', 'dashboard-settings'] },
)

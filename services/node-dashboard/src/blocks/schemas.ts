import { Type } from '@sinclair/typebox'
import { FEE_RATE_EDGES } from './mempool-fees.ts'
import { MAX_BLOCKS } from './recent-blocks.ts'

export const DEFAULT_BLOCKS = 20

export const BlocksQuery = Type.Object({
  count: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_BLOCKS, description: `blocks wanted, 1..${MAX_BLOCKS} (default ${DEFAULT_BLOCKS})` }),
  ),
})

const satPerVb = (description: string) => Type.Number({ minimum: 0, description: `${description}, sat/vB` })

export const BlocksResponse = Type.Object({
  tip_height: Type.Integer({ description: 'the height of the node’s best block' }),
  tip_hash: Type.String({ description: 'the hash of the node’s best block' }),
  blocks: Type.Array(
    Type.Object({
      height: Type.Integer(),
      hash: Type.String(),
      time: Type.Integer({ description: 'block time, unix seconds' }),
      txs: Type.Integer({ description: 'transactions, the coinbase included' }),
      size: Type.Integer({ description: 'bytes of the non-coinbase transactions (getblockstats total_size)' }),
      weight: Type.Integer({ description: 'weight units of the non-coinbase transactions (getblockstats total_weight)' }),
      total_fee: Type.Integer({ description: 'fees paid, satoshis' }),
      avg_fee_rate: satPerVb('average fee rate'),
      median_fee_rate: satPerVb('fee rate at the 50th percentile of the block’s weight'),
      fee_rate_percentiles: Type.Array(Type.Number(), {
        minItems: 5,
        maxItems: 5,
        description: 'fee rates at the 10th, 25th, 50th, 75th and 90th percentile of weight, sat/vB',
      }),
    }),
    { description: 'newest first' },
  ),
})

export const MempoolFeesResponse = Type.Object({
  state: Type.Union([Type.Literal('ok'), Type.Literal('too-large')], {
    description: 'ok: the buckets count the whole mempool; too-large: it holds more than max_transactions and was not fetched',
  }),
  mempool_size: Type.Integer({ description: 'transactions in the mempool (getmempoolinfo)' }),
  max_transactions: Type.Integer({ description: 'MEMPOOL_FEES_MAX_TXS' }),
  fetched_at: Type.String({ format: 'date-time' }),
  next_fetch_at: Type.String({
    format: 'date-time',
    description: 'until then the same answer is served (MEMPOOL_FEES_MIN_SECONDS)',
  }),
  buckets: Type.Array(
    Type.Object({
      min_fee_rate: Type.Number({ description: 'lower edge, sat/vB (included)' }),
      max_fee_rate: Type.Union([Type.Number(), Type.Null()], { description: 'upper edge, sat/vB (excluded); null for the last' }),
      count: Type.Integer({ description: 'transactions' }),
      vsize: Type.Integer({ description: 'their virtual size, vbytes' }),
    }),
    {
      description: `fee rate (base fee / vsize) buckets with lower edges ${FEE_RATE_EDGES.join(', ')} sat/vB; empty when too-large`,
    },
  ),
})

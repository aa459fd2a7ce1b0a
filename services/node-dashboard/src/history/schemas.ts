import { Type } from '@sinclair/typebox'
import { METRIC_NAMES } from '../dashboard/metrics.ts'

export const WINDOWS = { '5m': 300, '30m': 1800, '2h': 7200, '6h': 21600, all: null } as const
export type HistoryWindow = keyof typeof WINDOWS
export const DEFAULT_WINDOW: HistoryWindow = '30m'
export const DEFAULT_LIMIT = 500
export const MAX_LIMIT = 20_000

const WindowSchema = Type.Union(
  Object.keys(WINDOWS).map((w) => Type.Literal(w)),
  { description: 'one of 5m, 30m, 2h, 6h, all' },
)

const limit = Type.Optional(Type.Integer({ description: `points wanted; clamped to 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT})` }))

export const HistoryQuery = Type.Object({
  window: Type.Optional(
    Type.Union(WindowSchema.anyOf, { description: `one of 5m, 30m, 2h, 6h, all (default ${DEFAULT_WINDOW})` }),
  ),
  limit,
})
export const HistoryPathQuery = Type.Object({ limit })
export const HistoryParams = Type.Object({ window: WindowSchema })

/** The order of the values in each point: the bucket time, then every sampled metric. */
export const HISTORY_FIELDS = ['t', ...METRIC_NAMES] as const

// A type list, not anyOf: the serializer writes 20000 points of these without trying each branch.
const nullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] })
const HistoryPoint = Type.Array(nullableNumber, {
  minItems: HISTORY_FIELDS.length,
  maxItems: HISTORY_FIELDS.length,
  description:
    'one bucket: its values in the order of `fields`. t is the unix time (seconds) of the bucket, the mean time of ' +
    'its samples; each metric is the average of the samples that reported it, null when none did',
})

export const HistoryResponse = Type.Object({
  window: WindowSchema,
  limit: Type.Integer({ description: 'the limit applied after clamping' }),
  from: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  to: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  bucket_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'width of one bucket' }),
  fields: Type.Array(Type.String(), {
    description: `the name of each value of a point, in order: ${HISTORY_FIELDS.join(', ')}`,
  }),
  points: Type.Array(HistoryPoint, {
    description: 'bucket averages, oldest first, at most limit; rows of values named by fields (no key repeated 20000 times)',
  }),
})

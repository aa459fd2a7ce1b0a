import { Type } from '@sinclair/typebox'
import { SECRET_MASK } from '../settings/schemas.ts'
import { TARGET_FORMATS } from './formats.ts'
import { RULE_KINDS } from './rules.ts'

export const MAX_RULES = 50
export const MAX_TARGETS = 20
export const DELIVERIES_DEFAULT = 50
export const DELIVERIES_MAX = 200

const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description })

const RuleKindSchema = literals(
  RULE_KINDS,
  'node_unreachable (N minutes), tip_stalled (N minutes), peers_below (N peers), initial_download (no N), ' +
    'mempool_above (N MB of transactions, vsize), wallet_balance_below (N BTC)',
)
const FormatSchema = literals(TARGET_FORMATS, 'json (generic), ntfy, slack or discord body format')
const threshold = Type.Union([Type.Number(), Type.Null()], {
  description:
    'N: node_unreachable 0..10080 whole minutes; tip_stalled 1..10080 whole minutes; peers_below 1..10000 whole peers; ' +
    'mempool_above above 0, at most 100000 MB; wallet_balance_below above 0, at most 21000000 BTC; initial_download null',
})
// No control characters: names show on the screen and in the audit log.
const name = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description: 'a label' })
const url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: `http(s) webhook URL (a secret: never shown again); "${SECRET_MASK}" in an update keeps the stored one`,
})

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }) })

export const RuleBody = Type.Object(
  { kind: RuleKindSchema, threshold: Type.Optional(threshold), enabled: Type.Optional(Type.Boolean({ default: true })) },
  { additionalProperties: false },
)
export const RuleUpdateBody = Type.Object(
  { threshold: Type.Optional(threshold), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
)

export const RuleView = Type.Object({
  id: Type.Integer(),
  kind: RuleKindSchema,
  threshold: Type.Union([Type.Number(), Type.Null()]),
  unit: Type.Union([Type.String(), Type.Null()], { description: 'minutes, peers, MB, BTC; null for initial_download' }),
  description: Type.String({ description: 'the rule as a sentence' }),
  enabled: Type.Boolean(),
  firing: Type.Boolean({ description: 'true from the round it fired until the round it resolved' }),
  detail: Type.String({ description: 'what the round that last changed its state saw' }),
  changed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
})
export const RuleList = Type.Object({ rules: Type.Array(RuleView) })

export const TargetBody = Type.Object(
  { name, format: FormatSchema, url, enabled: Type.Optional(Type.Boolean({ default: true })) },
  { additionalProperties: false },
)
export const TargetUpdateBody = Type.Object(
  {
    name: Type.Optional(name),
    format: Type.Optional(FormatSchema),
    url: Type.Optional(url),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export const TargetView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  format: FormatSchema,
  url: Type.Literal(SECRET_MASK, { description: 'always masked' }),
  url_hint: Type.String({ description: 'scheme://host[:port] of the URL, to tell targets apart' }),
  enabled: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
})
export const TargetList = Type.Object({ targets: Type.Array(TargetView) })

export const TestResult = Type.Object({
  ok: Type.Boolean({ description: 'true for a 2xx answer' }),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'the HTTP status, null when none arrived' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'timeout, connect timeout, ECONNREFUSED, HTTP 500, ...' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  delivery_id: Type.Integer(),
})

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: DELIVERIES_MAX, description: `newest first (default ${DELIVERIES_DEFAULT})` }),
  ),
})

const nullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()])

export const DeliveryView = Type.Object({
  id: Type.Integer(),
  target_id: Type.Integer(),
  target_name: Type.Union([Type.String(), Type.Null()]),
  rule_id: Type.Union([Type.Integer(), Type.Null()]),
  event: literals(['fired', 'resolved', 'test'] as const, 'what happened'),
  title: Type.String(),
  message: Type.String(),
  state: literals(
    ['pending', 'delivered', 'failed', 'dropped'] as const,
    'pending (queued or waiting for a retry), delivered, failed (attempts spent or a final answer), dropped (queue full)',
  ),
  attempts: Type.Integer({ minimum: 0 }),
  last_status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'while pending' }),
  finished_at: nullableTime,
})
export const DeliveryList = Type.Object({ deliveries: Type.Array(DeliveryView) })

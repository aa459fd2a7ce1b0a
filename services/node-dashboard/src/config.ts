import { baseConfigProperties } from '@app/common'
import { type Static, Type } from '@sinclair/typebox'

export const configSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ default: 8081, minimum: 0, maximum: 65535, description: 'TCP port' }),
  DASHBOARD_USERNAME: Type.String({ default: 'admin', minLength: 1, maxLength: 200, description: 'dashboard login name' }),
  DASHBOARD_PASSWORD: Type.Optional(Type.String({ minLength: 1, description: 'dashboard password (plain)' })),
  DASHBOARD_PASSWORD_HASH: Type.Optional(
    Type.String({
      pattern: '^\\$scrypt\\$',
      description: 'a $scrypt$ln=..,r=..,p=..$salt$hash string (scripts/hash-password.ts)',
    }),
  ),
  SESSION_SECRET: Type.Optional(Type.String({ minLength: 32, description: 'session signing secret, at least 32 characters' })),
  SESSION_COOKIE_SECURE: Type.Boolean({ default: false, description: 'true or false' }),
  LOGIN_MAX_FAILURES: Type.Integer({ default: 10, minimum: 1, description: 'failed logins per IP per window' }),
  LOGIN_FAILURE_WINDOW_SECONDS: Type.Integer({ default: 900, minimum: 1, description: 'seconds' }),
  RPC_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 1, maximum: 600_000, description: 'milliseconds' }),
  RPC_METHOD_DENYLIST: Type.String({ default: '', description: 'comma-separated RPC method names the explorer refuses' }),
  // Absent: GET /metrics answers 404 like an unknown path.
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 1024,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'bearer token of GET /metrics: 16 to 1024 printable ASCII characters without spaces',
    }),
  ),
  METRICS_SAMPLE_SECONDS: Type.Integer({ default: 15, minimum: 1, maximum: 86_400, description: 'seconds' }),
  MEMPOOL_FEES_MAX_TXS: Type.Integer({
    default: 5000,
    minimum: 0,
    maximum: 100_000,
    description: 'the mempool fee-rate distribution is fetched only while the mempool holds at most this many transactions',
  }),
  MEMPOOL_FEES_MIN_SECONDS: Type.Integer({
    default: 30,
    minimum: 1,
    maximum: 86_400,
    description: 'seconds a mempool fee-rate distribution is reused before the node is asked again',
  }),
  HISTORY_RETENTION_DAYS: Type.Integer({ default: 30, minimum: 1, maximum: 36_500, description: 'days' }),
  SSH_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 1, maximum: 600_000, description: 'milliseconds' }),
  // A stopping bitcoind keeps its data-directory lock until it exits (1.5 s on regtest, minutes on a busy mainnet node).
  RESTART_START_WAIT_MS: Type.Integer({
    default: 60_000,
    minimum: 0,
    maximum: 3_600_000,
    description: 'milliseconds restart keeps retrying the start while the old node still holds its lock',
  }),
  // A node answers -28 from early in its init, so this bounds the wait for its RPC server, not its warm-up.
  START_WAIT_MS: Type.Integer({
    default: 60_000,
    minimum: 0,
    maximum: 3_600_000,
    description: 'milliseconds start and restart wait for the started node to answer RPC',
  }),
  DEMO_NODE: Type.Union([Type.Literal('auto'), Type.Literal('on'), Type.Literal('off')], {
    default: 'auto',
    description: 'auto (on with the embedded database), on or off: a simulated node in process while no node settings are saved',
  }),
  ALERT_WEBHOOK_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    maximum: 120_000,
    description: 'milliseconds one webhook delivery attempt may take, answer included',
  }),
  ALERT_WEBHOOK_CONNECT_TIMEOUT_MS: Type.Integer({
    default: 5_000,
    minimum: 100,
    maximum: 60_000,
    description: 'milliseconds to connect to a webhook target',
  }),
  ALERT_DELIVERY_ATTEMPTS: Type.Integer({
    default: 6,
    minimum: 1,
    maximum: 20,
    description: 'attempts per notification and target',
  }),
  ALERT_RETRY_BASE_MS: Type.Integer({
    default: 10_000,
    minimum: 100,
    maximum: 3_600_000,
    description: 'milliseconds before the first retry; each next retry waits twice as long (at most 10 minutes)',
  }),
})

export type Config = Static<typeof configSchema>

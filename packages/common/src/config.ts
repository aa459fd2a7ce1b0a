import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** Thrown when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** Settings every service shares; each service spreads these into its own schema. */
export const baseConfigProperties = {
  HOST: Type.String({ default: '127.0.0.1', minLength: 1, description: 'address to listen on' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('pretty'), Type.Literal('json')], {
    default: 'auto',
    description: 'auto (pretty in a terminal, JSON otherwise), pretty or json',
  }),
  TRUST_PROXY: Type.String({
    default: 'false',
    description: 'false, true, a hop count, or a comma-separated list of proxy addresses',
  }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'a postgres:// URL' })),
  DATA_DIR: Type.String({ default: 'data', minLength: 1 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'a redis:// URL' })),
  HTTP_IDLE_TIMEOUT_MS: Type.Integer({
    default: 30_000,
    minimum: 100,
    description: 'milliseconds a connection may stay silent mid-request before it is closed',
  }),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 100, description: 'milliseconds to receive the headers' }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({
    default: 300_000,
    minimum: 100,
    description: 'milliseconds to receive a whole request (a 5 MB upload at 150 kbit/s fits)',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    default: 72_000,
    minimum: 100,
    description: 'milliseconds an idle keep-alive connection stays open (longer than a proxy in front keeps its own)',
  }),
} satisfies TProperties

const baseConfigSchema = Type.Object(baseConfigProperties)
/** The shared settings as typed values (derived from the schema above). */
export type BaseConfig = Static<typeof baseConfigSchema>

function describe(schema: unknown): string {
  const s = schema as Record<string | symbol, unknown>
  if (typeof s.description === 'string') return s.description
  if (Array.isArray(s.anyOf)) {
    const literals = s.anyOf.map((x: { const?: unknown }) => x.const).filter((x) => x !== undefined)
    if (literals.length === s.anyOf.length) return `one of ${literals.join(', ')}`
    return s.anyOf.map((x) => describe(x)).join(' or ')
  }
  const parts = [String(s.type ?? 'value')]
  if (s.minimum !== undefined) parts.push(`>= ${s.minimum}`)
  if (s.maximum !== undefined) parts.push(`<= ${s.maximum}`)
  if (s.minLength !== undefined) parts.push(`at least ${s.minLength} characters`)
  if (s.pattern !== undefined) parts.push(`matching ${s.pattern}`)
  return parts.join(' ')
}

function isIntegerSchema(schema: unknown): boolean {
  const s = schema as { type?: unknown; anyOf?: unknown[] } | undefined
  return s?.type === 'integer' || (Array.isArray(s?.anyOf) && s.anyOf.some(isIntegerSchema))
}

/**
 * Reads the environment against a TypeBox schema: applies defaults, converts strings to the
 * declared types and reports every bad variable at once (by name and expectation, never value).
 */
export function loadConfig<T extends TObject>(schema: T, env: Record<string, string | undefined> = process.env): Static<T> {
  const input: Record<string, unknown> = {}
  for (const key of Object.keys(schema.properties)) {
    const raw = env[key]
    if (raw !== undefined && raw !== '') input[key] = raw
  }
  const value = Value.Default(schema, Value.Convert(schema, input)) as Record<string, unknown>
  // Convert would round 1.5 or read 1e3 as an integer: such a value stays text, so it is reported as invalid.
  for (const key of Object.keys(schema.properties)) {
    const raw = env[key]
    if (raw && isIntegerSchema(schema.properties[key]) && !/^[+-]?\d+$/.test(raw)) value[key] = raw
  }
  const problems = new Map<string, string>()
  for (const error of Value.Errors(schema, value)) {
    const key = error.path.replace(/^\//, '').split('/')[0] || '(root)'
    if (problems.has(key)) continue
    const expected = describe(schema.properties[key] ?? error.schema)
    problems.set(
      key,
      env[key] === undefined ? `${key} is required: expected ${expected}` : `${key} is invalid: expected ${expected}`,
    )
  }
  if (problems.size > 0) throw new ConfigError([...problems.values()])
  return value as Static<T>
}

/** Turns TRUST_PROXY into the value Fastify's trustProxy option takes. */
export function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true
  if (value === 'false' || value === '') return false
  if (/^\d+$/.test(value)) return Number(value)
  return value
}

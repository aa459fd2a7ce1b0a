import { randomUUID } from 'node:crypto'
import AjvCompiler, { type Options, type RouteDefinition } from '@fastify/ajv-compiler'
import { type Static, type TObject, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import closeWithGrace from 'close-with-grace'
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import { type BaseConfig, baseConfigProperties, ConfigError, loadConfig, parseTrustProxy } from './config.ts'
import type { ErrorHandlerOptions } from './errors.ts'

/** Header and body fields that may carry secrets: never logged. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...['password', 'rpc_password', 'ssh_password', 'token', 'apiKey', 'secret'].flatMap((key) => [key, `*.${key}`]),
]

/** The Fastify options every service uses: logger, request ids, proxy trust, validation defaults. */
export function fastifyOptions(
  config: Pick<BaseConfig, 'LOG_LEVEL' | 'LOG_FORMAT' | 'TRUST_PROXY'> & Partial<HttpTimeouts>,
  {
    messageKey,
    validationStatus,
    pretty = config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT !== 'json' && process.stdout.isTTY),
  }: ErrorHandlerOptions & { pretty?: boolean },
): FastifyServerOptions {
  return {
    // Errors Fastify answers before routing, in the service's body shape: an undecodable path is a
    // validation failure of the path; an over-long parameter keeps its 414.
    frameworkErrors: (error, _request, reply) => {
      const status = error.code === 'FST_ERR_BAD_URL' ? validationStatus : (error.statusCode ?? 400)
      // The reply is not typed for a route here; the body is the service's error shape.
      // Sent before routing, past the services' onSend hooks: the API's baseline headers are set here.
      ;(reply as FastifyReply)
        .code(status)
        .headers(errorAnswerHeaders)
        .send({ [messageKey]: error.message })
    },
    logger: {
      level: config.LOG_LEVEL,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      ...(pretty
        ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } }
        : {}),
    },
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // A hop count is accepted at run time though the type omits it.
    trustProxy: parseTrustProxy(config.TRUST_PROXY) as FastifyServerOptions['trustProxy'],
    schemaController: { compilersFactory: { buildValidator: strictBodyValidators } },
    ...httpTimeouts(config),
    // Keep-alive sockets must not hold a shutdown open.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // The embedded database's first start (WASM init + migrations) can take a while on a slow disk.
    pluginTimeout: 120_000,
  }
}

const timeoutNames = [
  'HTTP_IDLE_TIMEOUT_MS',
  'HTTP_HEADERS_TIMEOUT_MS',
  'HTTP_REQUEST_TIMEOUT_MS',
  'HTTP_KEEP_ALIVE_TIMEOUT_MS',
] as const
type HttpTimeouts = Pick<BaseConfig, (typeof timeoutNames)[number]>
const defaultTimeouts = Value.Default(Type.Pick(Type.Object(baseConfigProperties), timeoutNames), {}) as HttpTimeouts

/** Every phase of a request is bounded: a client that goes silent cannot hold a connection and its bytes. */
function httpTimeouts(config: Partial<HttpTimeouts>): Partial<FastifyServerOptions> {
  const t = { ...defaultTimeouts, ...config }
  return {
    // Socket inactivity: a body that stops arriving is cut off, while a slow steady upload goes on.
    connectionTimeout: t.HTTP_IDLE_TIMEOUT_MS,
    requestTimeout: t.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: t.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    // Node refuses a headers timeout above the request timeout.
    http: { headersTimeout: Math.min(t.HTTP_HEADERS_TIMEOUT_MS, t.HTTP_REQUEST_TIMEOUT_MS) },
  } as Partial<FastifyServerOptions>
}

const ajvOptions = { removeAdditional: false, useDefaults: true, allErrors: false } as const
const ajvCompilers = AjvCompiler()

/**
 * Query strings, paths and headers coerce (one `tag` becomes an array, `page=2` a number); JSON bodies
 * validate strictly, so `"params": "x"` or `{"host": ["h"]}` is a validation failure, not a silent rewrite.
 */
function strictBodyValidators(externalSchemas: Parameters<typeof ajvCompilers>[0], options?: { customOptions?: Options }) {
  const compiler = (coerceTypes: Options['coerceTypes']) =>
    ajvCompilers(externalSchemas, { ...options, customOptions: { ...options?.customOptions, ...ajvOptions, coerceTypes } })
  const strict = compiler(false)
  const lenient = compiler('array')
  // Fastify calls the compiler with the whole route definition (the published type names only the schema).
  return ((route: RouteDefinition) =>
    route.httpPart === 'body' ? strict(route as never) : finiteOnly(lenient(route as never))) as never
}

type Validate = ((data: unknown) => boolean) & { errors?: unknown }

/** Coercion turns "Infinity" or "1e309" into a number that passes `maximum`: a text part must spell a finite one. */
function finiteOnly(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors
      return false
    }
    const field = nonFiniteField(data)
    checked.errors = field === undefined ? null : [{ instancePath: `/${field}`, message: 'must be a finite number' }]
    return field === undefined
  }
  return checked
}

/** Query strings, paths and headers are flat: values or lists of values. */
function nonFiniteField(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object') return undefined
  for (const [name, value] of Object.entries(data)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'number' && !Number.isFinite(item)) return name
    }
  }
  return undefined
}

/** Headers of a JSON error answered before routing: not cached, not sniffed, not framed, no referrer. */
export const errorAnswerHeaders: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
}

/** Marks a response as not to be stored by any cache. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store')
}

export interface StartOptions<S extends TObject> {
  name: string
  /** The service's error body shape and validation status. */
  errors: ErrorHandlerOptions
  schema: S
  app: FastifyPluginAsync<{ config: Static<S> }>
  port: (config: Static<S>) => number
}

/**
 * Reads the config, builds the app, listens, and closes gracefully on SIGINT/SIGTERM.
 * A bad config prints one readable message and exits 1 without a stack trace.
 */
export async function startServer<S extends TObject>({
  name,
  errors,
  schema,
  app,
  port,
}: StartOptions<S>): Promise<FastifyInstance> {
  let config: Static<S>
  try {
    config = loadConfig(schema)
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
  const fastify = Fastify(fastifyOptions(config as unknown as BaseConfig, errors))
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) fastify.log.error({ err }, 'fatal error; shutting down')
    else fastify.log.info({ signal }, 'shutting down')
    await fastify.close()
  })
  try {
    await fastify.register(fp(app), { config })
    await fastify.listen({ host: (config as unknown as BaseConfig).HOST, port: port(config) })
  } catch (error) {
    fastify.log.fatal({ err: error }, `${name} failed to start`)
    await fastify.close().catch(() => {})
    process.exit(1)
  }
  return fastify
}

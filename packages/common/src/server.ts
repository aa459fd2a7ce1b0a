import AjvCompiler, { type Options, type RouteDefinition } from '@fastify/ajv-compiler'
import { type Static, type TObject, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import closeWithGrace from 'close-with-grace'
import Fastify, { type FastifyInstance, type FastifyLoggerOptions, type FastifyReply, type FastifyServerOptions } from 'fastify'
import type { DestinationStream } from 'pino'
import { type BaseConfig, baseConfigProperties, ConfigError, loadConfig, parseTrustProxy } from './config.ts'
import type { ErrorHandlerOptions } from './errors.ts'
import { installFastPaths } from './fast-path.ts'
import {
  echoRequestId,
  OneLinePerRequest,
  prettyLogOptions,
  REQUEST_ID_HEADER,
  requestIdOf,
  serializeRequest,
} from './request-log.ts'
import { addMissingSecurityHeaders, noStore, type SecurityHeaderPolicy } from './security-headers.ts'

/** How a service answers: its error body shape and the headers on every answer (Fastify's own errors included). */
export interface AnswerPolicy extends ErrorHandlerOptions {
  securityHeaders: SecurityHeaderPolicy
}

/** Header and body fields that may carry secrets: never logged. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...['password', 'rpc_password', 'ssh_password', 'token', 'apiKey', 'secret'].flatMap((key) => [key, `*.${key}`]),
]

/** Where and how a caller (a test, a bench) wants the log instead of the service's stdout. */
export interface LogOverrides {
  /** Log lines go here, as JSON, instead of stdout. */
  stream?: DestinationStream
  serializers?: FastifyLoggerOptions['serializers']
}

type ServerConfig = Pick<BaseConfig, 'LOG_LEVEL' | 'LOG_FORMAT' | 'TRUST_PROXY'> & Partial<HttpTimeouts>

/** A Fastify instance with the options every service uses; the service registers its app on it. */
export function createFastify(config: ServerConfig, answers: AnswerPolicy, log: LogOverrides = {}): FastifyInstance {
  const options = fastifyOptions(config, { ...answers, pretty: log.stream ? false : undefined })
  const logger = options.logger as FastifyLoggerOptions
  const fastify = Fastify({
    ...options,
    logger: { ...logger, ...log, serializers: { ...logger.serializers, ...log.serializers } },
  })
  echoRequestId(fastify)
  idleBoundOnTheClientOnly(fastify, config.HTTP_IDLE_TIMEOUT_MS ?? defaultTimeouts.HTTP_IDLE_TIMEOUT_MS)
  installFastPaths(fastify, parseTrustProxy(config.TRUST_PROXY), answers.securityHeaders)
  return fastify
}

/**
 * The idle bound is for a silent client: it is lifted once the request is in, while the server works on the
 * answer (a node start waits for RPC, a classifier runs), and set again while the answer is written.
 */
function idleBoundOnTheClientOnly(fastify: FastifyInstance, idleMs: number) {
  fastify.addHook('preHandler', (request, _reply, done) => {
    const socket = request.raw.socket
    if (typeof socket?.setTimeout === 'function') {
      // A body streamed by the handler (multipart) keeps the bound until its last byte.
      if (request.raw.complete) socket.setTimeout(0)
      else request.raw.once('end', () => socket.setTimeout(0))
    }
    done()
  })
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    const socket = request.raw.socket
    if (typeof socket?.setTimeout === 'function' && !socket.destroyed) socket.setTimeout(idleMs)
    done(null, payload)
  })
}

/** The Fastify options every service uses: logger, request ids, proxy trust, validation defaults. */
export function fastifyOptions(
  config: ServerConfig,
  {
    messageKey,
    validationStatus,
    securityHeaders,
    pretty = config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT !== 'json' && process.stdout.isTTY),
  }: AnswerPolicy & { pretty?: boolean },
): FastifyServerOptions {
  return {
    // Errors Fastify answers before routing, in the service's body shape: an undecodable path is a
    // validation failure of the path; an over-long parameter keeps its 414.
    frameworkErrors: (error, request, reply) => {
      const status = error.code === 'FST_ERR_BAD_URL' ? validationStatus : (error.statusCode ?? 400)
      // The reply is not typed for a route here; the body is the service's error shape.
      const answer = noStore((reply as FastifyReply).code(status))
      // Sent before routing, past the base plugin's onSend hook: the service's baseline headers are set here.
      addMissingSecurityHeaders(answer, request.url, securityHeaders)
      answer.header(REQUEST_ID_HEADER, request.id)
      answer.send({ [messageKey]: error.message })
    },
    logger: {
      level: config.LOG_LEVEL,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      serializers: { req: serializeRequest },
      ...(pretty ? { transport: { target: 'pino-pretty', options: prettyLogOptions } } : {}),
    },
    // The caller's X-Request-Id only once validated (Fastify would take any header value as it is).
    requestIdHeader: false,
    genReqId: requestIdOf,
    logController: new OneLinePerRequest(),
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

/**
 * Reads the service's configuration from the environment. A bad one prints one readable message and
 * exits 1 without a stack trace.
 */
export function loadConfigOrExit<S extends TObject>(name: string, schema: S): Static<S> {
  try {
    return loadConfig(schema)
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
}

/**
 * Starts a built app: listens, and closes gracefully on SIGINT/SIGTERM. A failed start (a plugin that
 * cannot load, a port in use) is logged and exits 1.
 */
export async function startServer(
  name: string,
  fastify: FastifyInstance,
  address: { host: string; port: number },
): Promise<FastifyInstance> {
  let stopping = false
  // Exits 0 once closed after SIGINT/SIGTERM (1 after a fatal error, or a second signal, or 10 s).
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    stopping = true
    if (err) fastify.log.error({ err }, 'fatal error; shutting down')
    else fastify.log.info({ signal }, 'shutting down')
    await fastify.close()
  })
  try {
    await fastify.ready()
    // A signal during start-up (migrations, model loading): close without ever listening.
    if (!stopping) await fastify.listen(address)
  } catch (error) {
    // Start-up interrupted by the shutdown: the close above ends the process.
    if (stopping) return fastify
    fastify.log.fatal({ err: error }, `${name} failed to start`)
    await fastify.close().catch(() => {})
    process.exit(1)
  }
  return fastify
}

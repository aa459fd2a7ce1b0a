import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify'

export const REQUEST_ID_HEADER = 'X-Request-Id'

// Short and printable (visible ASCII, no spaces): safe to log and to send back as a header.
const ACCEPTED_REQUEST_ID = /^[\x21-\x7e]{1,128}$/

/** The caller's X-Request-Id when it is short and printable; otherwise a new UUID. Never echoes an invalid one. */
export function requestIdOf(request: Pick<IncomingMessage, 'headers'>): string {
  const incoming = request.headers['x-request-id']
  return typeof incoming === 'string' && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

/** Sends the request id back on every answer, routed or not (Fastify's pre-routing errors set it themselves). */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id)
  })
}

/** Query parameters whose values are secrets (GIPHY-style api keys travel in the URL): never logged. */
const SECRET_PARAMS = new Set(['api_key'])

/** The URL as logged: the value of every secret query parameter replaced by [redacted]. */
export function loggedUrl(url: string): string {
  const query = url.indexOf('?')
  if (query < 0) return url
  const parts = url.slice(query + 1).split('&')
  let changed = false
  for (let i = 0; i < parts.length; i++) {
    const eq = parts[i].indexOf('=')
    const name = eq < 0 ? parts[i] : parts[i].slice(0, eq)
    if (eq >= 0 && SECRET_PARAMS.has(safeDecode(name))) {
      parts[i] = `${name}=[redacted]`
      changed = true
    }
  }
  return changed ? `${url.slice(0, query)}?${parts.join('&')}` : url
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** Fastify's request serializer with the URL as logged (loggedUrl). */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request.url),
    version: request.headers?.['accept-version'] as string | undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}

/**
 * One log line per request, after the answer, instead of Fastify's two: method, URL, status and time in the
 * message (a pretty log stays one line) and as fields (req, res, responseTime) for JSON logs. A route's logLevel
 * above info (the health and readiness probes) keeps it out.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const ms = Math.round(reply.elapsedTime * 10) / 10
    const line = requestLine(request.method, request.url, reply.statusCode, ms)
    const fields = { req: request, res: reply, responseTime: ms }
    if (error) reply.log.error({ ...fields, err: error }, `${line} (errored)`)
    else reply.log.info(fields, line)
  }
}

/** The message of a request's one log line. */
export function requestLine(method: string, url: string, status: number, ms: number): string {
  return `${method} ${loggedUrl(url)} ${status} ${ms} ms`
}

/**
 * pino-pretty options: the request id leads the message and the request line's req/res objects are left out
 * (each would add lines), so one request is one line.
 */
export const prettyLogOptions = {
  translateTime: 'SYS:HH:MM:ss',
  ignore: 'pid,hostname,reqId,req,res,responseTime',
  messageFormat: '{if reqId}[{reqId}] {end}{msg}',
}

import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { REQUEST_ID_HEADER, requestIdOf, requestLine } from './request-log.ts'
import type { SecurityHeaderPolicy } from './security-headers.ts'

/** A request as a pre-router path sees it: what Fastify's request would say, without building one. */
export interface FastRequest {
  readonly raw: IncomingMessage
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly socket: Socket
  /** The client address as Fastify's `request.ip` gives it under the same TRUST_PROXY. */
  readonly ip: string
  /** As Fastify's `request.host` (for the log line's `req`). */
  readonly host: string
}

/** What a pre-router path answers; header names in lower case, as Fastify writes them. */
export interface FastAnswer {
  status: number
  headers: OutgoingHttpHeaders
  /** Left out of the answer to a HEAD (its Content-Length stays). */
  body?: Buffer
}

/**
 * Answers a request before Fastify routes it, or passes: undefined (at once or after an await) hands the request to
 * Fastify unchanged. Only for hot, simple answers whose every header the path itself knows.
 */
export type FastPath = (request: FastRequest) => FastAnswer | Promise<FastAnswer | undefined> | undefined

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Adds a pre-router path to the HTTP server (`inject` does not pass through it). Every answer it gives gets what
     * every answer of the service gets: the X-Request-Id, the security headers and the one log line.
     */
    addFastPath(path: FastPath): void
  }
}

type TrustProxy = boolean | number | string

/** Fastify's own rule (lib/request.js): a hop count cannot vouch for the immediate peer, so it trusts no proxy. */
function trustFunction(trustProxy: TrustProxy): ((address: string, hop: number) => boolean) | null {
  if (trustProxy === false) return null
  if (trustProxy === true) return () => true
  if (typeof trustProxy === 'number') return () => false
  return proxyAddr.compile(trustProxy.split(',').map((value) => value.trim()))
}

const lastEntry = (value: string) => value.slice(value.lastIndexOf(',') + 1).trim()

class PreRoutedRequest implements FastRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly socket: Socket
  /** Set once a path answers (a passed request gets its id from Fastify). */
  id = ''
  private address: string | undefined
  constructor(
    readonly raw: IncomingMessage,
    private readonly trust: ((address: string, hop: number) => boolean) | null,
  ) {
    this.method = raw.method ?? ''
    this.url = raw.url ?? ''
    this.headers = raw.headers
    this.socket = raw.socket
  }
  get ip(): string {
    if (this.address === undefined) {
      if (this.trust) {
        const all = proxyAddr.all(this.raw, this.trust)
        this.address = all[all.length - 1]
      } else this.address = this.socket.remoteAddress ?? ''
    }
    return this.address
  }
  get host(): string {
    const forwarded = this.headers['x-forwarded-host']
    if (this.trust && forwarded && this.trust(this.socket.remoteAddress ?? '', 0)) return lastEntry(String(forwarded))
    return this.headers.host ?? ''
  }
}

/**
 * Puts the pre-router paths in front of Fastify's request listener. Fastify's hook chain costs more per request
 * than Node's HTTP server; a path answers its hot requests at the cost of writing the answer, doing itself what the
 * service does on every answer (request id, security headers, log line). Anything it passes goes to Fastify.
 */
export function installFastPaths(fastify: FastifyInstance, trustProxy: TrustProxy, security: SecurityHeaderPolicy): void {
  const paths: FastPath[] = []
  const trust = trustFunction(trustProxy)
  const baseline = Object.entries(security.baseline).map(([name, value]) => [name.toLowerCase(), value] as const)
  const noStorePrefixes = security.noStorePrefixes ?? []
  let closing = false
  fastify.decorate('addFastPath', (path: FastPath) => {
    paths.push(path)
  })
  // Fastify answers 503 with Connection: close from here on; its listener does that.
  fastify.addHook('preClose', async () => {
    closing = true
  })

  const server = fastify.server
  const [routing, ...others] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[]
  if (!routing || others.length > 0) throw new Error('expected Fastify as the only request listener')
  server.removeListener('request', routing)

  function send(request: PreRoutedRequest, res: ServerResponse, answer: FastAnswer, startedAt: number) {
    const { headers } = answer
    if (noStorePrefixes.some((prefix) => request.url.startsWith(prefix))) headers['cache-control'] = 'no-store'
    for (const [name, value] of baseline) if (headers[name] === undefined) headers[name] = value
    request.id = requestIdOf(request.raw)
    headers[REQUEST_ID_HEADER_LOWER] = request.id
    res.writeHead(answer.status, headers)
    // Fastify's logger is pino's (its published type leaves the level check out).
    if (!(fastify.log as unknown as Logger).isLevelEnabled('info')) {
      res.end(answer.body)
      return
    }
    // Logged when the answer is written, as Fastify logs on 'finish': the same line and fields.
    res.end(answer.body, () => {
      const ms = Math.round((performance.now() - startedAt) * 10) / 10
      fastify.log.info(
        { reqId: request.id, req: request, res: { statusCode: answer.status }, responseTime: ms },
        requestLine(request.method, request.url, answer.status, ms),
      )
    })
  }

  async function settle(
    request: PreRoutedRequest,
    res: ServerResponse,
    pending: Promise<FastAnswer | undefined>,
    startedAt: number,
  ) {
    let answer: FastAnswer | undefined
    try {
      answer = await pending
    } catch (error) {
      // Fastify answers it, with its error handling; the failure is the path's, and logged.
      fastify.log.warn({ err: error, url: request.url }, 'pre-router path failed; passed to the router')
    }
    if (answer) send(request, res, answer, startedAt)
    else routing(request.raw, res)
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (paths.length === 0 || closing) return routing(req, res)
    const startedAt = performance.now()
    const request = new PreRoutedRequest(req, trust)
    for (const path of paths) {
      let answer: ReturnType<FastPath>
      try {
        answer = path(request)
      } catch (error) {
        answer = Promise.reject(error)
      }
      if (answer === undefined) continue
      if (answer instanceof Promise) void settle(request, res, answer, startedAt)
      else send(request, res, answer, startedAt)
      return
    }
    routing(req, res)
  })
}

const REQUEST_ID_HEADER_LOWER = REQUEST_ID_HEADER.toLowerCase()

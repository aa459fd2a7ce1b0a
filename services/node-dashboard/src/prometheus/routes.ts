import { HttpError, withHeaders } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Config } from '../config.ts'
import { errorAnswer } from '../schemas.ts'
import { bearerChecker } from './bearer.ts'

const REALM = 'Bearer realm="metrics"'

const EXAMPLE = [
  '# HELP bitcoind_blocks Height of the most-work fully validated chain (getblockchaininfo blocks)',
  '# TYPE bitcoind_blocks gauge',
  'bitcoind_blocks 923456',
  '# HELP bitcoind_peers Connected peers by direction (inbound, outbound) and network (getpeerinfo)',
  '# TYPE bitcoind_peers gauge',
  'bitcoind_peers{direction="inbound",network="ipv4"} 8',
  'bitcoind_peers{direction="outbound",network="ipv4"} 10',
  '',
].join('\n')

const wwwAuthenticate = {
  'WWW-Authenticate': {
    type: 'string' as const,
    description: `${REALM} without a token; ${REALM}, error="invalid_token" with a wrong one.`,
  },
}

/** GET /metrics: this instance's registry in the Prometheus text format, behind METRICS_TOKEN (404 without it). */
export const prometheusRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  const check = config.METRICS_TOKEN ? bearerChecker(config.METRICS_TOKEN) : null
  const registry = fastify.prometheus.registry

  fastify.get(
    '/metrics',
    {
      schema: {
        operationId: 'getMetrics',
        summary: 'Node and dashboard metrics in the Prometheus text format',
        description:
          "For a Prometheus scrape job (bearer token METRICS_TOKEN). Node values come from the sampler's latest round, so " +
          'a scrape never calls the node; the dashboard adds its RPC latency and errors, sampler rounds and node actions. ' +
          'Without METRICS_TOKEN the route is off and answers 404 like an unknown path.',
        tags: ['metrics'],
        security: [{ metricsToken: [] }],
        response: {
          200: {
            'x-response-description': 'The metrics (text exposition format 0.0.4).',
            content: { 'text/plain': { schema: Type.String({ examples: [EXAMPLE] }) } },
          },
          401: withHeaders(
            errorAnswer('The Authorization header does not carry the METRICS_TOKEN bearer token.'),
            wwwAuthenticate,
          ),
          404: errorAnswer('METRICS_TOKEN is not set: the route is off.'),
        },
      },
    },
    async (request, reply) => {
      if (!check) return reply.callNotFound()
      const verdict = check(request.headers.authorization)
      if (verdict !== 'ok') {
        const header = verdict === 'missing' ? REALM : `${REALM}, error="invalid_token"`
        throw new HttpError(401, 'A valid metrics bearer token is required.', { 'WWW-Authenticate': header })
      }
      const text = await registry.metrics()
      return reply.type(registry.contentType).send(text)
    },
  )
}

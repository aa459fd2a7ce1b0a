import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import { described, errorAnswer, errorResponse } from '../schemas.ts'
import {
  DEFAULT_LIMIT,
  DEFAULT_WINDOW,
  HISTORY_FIELDS,
  HistoryParams,
  HistoryPathQuery,
  HistoryQuery,
  HistoryResponse,
  type HistoryWindow,
  MAX_LIMIT,
  WINDOWS,
} from './schemas.ts'

type HistoryBody = Static<typeof HistoryResponse>

/** An answer already in JSON is sent as is, past the schema serializer (which documents it). */
function send(reply: FastifyReply, body: HistoryBody | Buffer): HistoryBody | FastifyReply {
  return Buffer.isBuffer(body) ? reply.type('application/json; charset=utf-8').send(body) : body
}

const clampLimit = (limit: number | undefined) => Math.min(MAX_LIMIT, Math.max(1, limit ?? DEFAULT_LIMIT))

export const historyRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { metrics } = fastify
  // The `all` answer changes only when a sample is added or pruned (first or last sample time), so
  // the latest one is kept serialized: dashboards polling it share one computation per sample.
  let lastAll: { key: string; json: Buffer } | null = null

  async function history(window: HistoryWindow, requested: number | undefined): Promise<HistoryBody | Buffer> {
    const limit = clampLimit(requested)
    const seconds = WINDOWS[window]
    const now = Date.now() / 1000
    const range = seconds === null ? await metrics.extent() : { from: now - seconds, to: now }
    if (!range) return { window, limit, from: null, to: null, bucket_seconds: null, fields: [...HISTORY_FIELDS], points: [] }
    if (seconds === null) {
      const key = `${limit}:${range.from}:${range.to}`
      if (lastAll?.key !== key) lastAll = { key, json: await answer(window, limit, range) }
      return lastAll.json
    }
    return answer(window, limit, range)
  }

  /**
   * The answer as JSON bytes, the points written by PostgreSQL. Bytes, not text joined around the points: a
   * joined string is copied whole again (megabytes of garbage per answer, which V8 collects late) to be sent.
   */
  async function answer(window: HistoryWindow, limit: number, range: { from: number; to: number }): Promise<Buffer> {
    const parts = await metrics.bucketsJson(range, limit)
    const head = JSON.stringify({
      window,
      limit,
      from: new Date(range.from * 1000).toISOString(),
      to: new Date(range.to * 1000).toISOString(),
      bucket_seconds: (range.to - range.from) / limit,
      fields: HISTORY_FIELDS,
    })
    const prefix = `${head.slice(0, -1)},"points":[`
    const size = parts.reduce((sum, part) => sum + Buffer.byteLength(part) + 1, Buffer.byteLength(prefix) + 2)
    const body = Buffer.allocUnsafe(size - (parts.length > 0 ? 1 : 0))
    let at = body.write(prefix)
    for (const [i, part] of parts.entries()) {
      if (i > 0) at += body.write(',', at)
      at += body.write(part, at)
    }
    body.write(']}', at)
    return body
  }

  const response = {
    200: described(HistoryResponse, 'Bucket averages of the window, oldest first.'),
    ...errorResponse(401),
    422: errorAnswer('window is not one of 5m, 30m, 2h, 6h, all, or limit is not an integer.'),
  }
  const description = `Bucket averages of the sampled metrics, oldest first, each point an array of values named by fields. window: 5m, 30m, 2h, 6h or all (default ${DEFAULT_WINDOW}); limit clamped to 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`

  fastify.get(
    '/api/dashboard/history',
    {
      config: { auth: true },
      schema: {
        operationId: 'getHistory',
        summary: 'Metric history',
        description,
        tags: ['dashboard'],
        querystring: HistoryQuery,
        response,
      },
    },
    async (request, reply) =>
      send(reply, await history((request.query.window as HistoryWindow | undefined) ?? DEFAULT_WINDOW, request.query.limit)),
  )

  fastify.get(
    '/api/dashboard/history/:window',
    {
      config: { auth: true },
      schema: {
        operationId: 'getHistoryWindow',
        summary: 'Metric history for one window',
        description,
        tags: ['dashboard'],
        params: HistoryParams,
        querystring: HistoryPathQuery,
        response,
      },
    },
    async (request, reply) => send(reply, await history(request.params.window as HistoryWindow, request.query.limit)),
  )
}

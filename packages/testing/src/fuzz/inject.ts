import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import type { FuzzRequest } from './requests.ts'
import type { Send } from './run.ts'

/** The body as the client reads it: compressed answers (the fuzz sends Accept-Encoding) are decoded. */
export function decodeBody(encoding: unknown, raw: Buffer): string {
  if (encoding === 'gzip') return gunzipSync(raw).toString()
  if (encoding === 'br') return brotliDecompressSync(raw).toString()
  if (encoding === 'deflate') return inflateSync(raw).toString()
  return raw.toString()
}

/** Sends fuzz requests to an app in process (light-my-request), without a socket. */
export const injectSend =
  (app: FastifyInstance): Send =>
  async (request: FuzzRequest) => {
    const res = await app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: request.headers,
      ...(request.payload === undefined ? {} : { payload: request.payload }),
    })
    return { statusCode: res.statusCode, headers: res.headers, body: decodeBody(res.headers['content-encoding'], res.rawPayload) }
  }

import http from 'node:http'

export interface HttpAnswer {
  status: number
  /** Header names in lower case, as Node's client gives them. */
  headers: http.IncomingHttpHeaders
  body: Buffer
}

/**
 * One request over a real socket (not `inject`, which enters Fastify behind the HTTP server's request listener),
 * for answers given before Fastify routes the request.
 */
export function httpRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        )
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end()
  })
}

/** Listens on a free loopback port and returns it. */
export async function listenOnLoopback(app: { listen(o: { port: number; host: string }): Promise<string>; server: http.Server }) {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('not listening on a port')
  return address.port
}

import http from 'node:http'

export interface RawReply {
  status: number
  statusText: string
  headers: http.IncomingHttpHeaders
  body: string
}

/** One plain HTTP exchange (no client niceties), to compare with the curl captures. */
export function send(
  url: string,
  { method = 'POST', body, auth }: { method?: string; body?: string; auth?: string } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' }
    if (auth !== undefined) headers.Authorization = `Basic ${Buffer.from(auth).toString('base64')}`
    if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body))
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A JSON-RPC call as the dashboard would make it (legacy unless `v2`). */
export async function rpc(
  url: string,
  method: string,
  params: unknown = [],
  { auth = 'u:p', v2 = false, id = 1 }: { auth?: string; v2?: boolean; id?: unknown } = {},
) {
  const reply = await send(url, {
    auth,
    body: JSON.stringify(v2 ? { jsonrpc: '2.0', method, params, id } : { method, params, id }),
  })
  return { ...reply, json: reply.body ? JSON.parse(reply.body) : null }
}

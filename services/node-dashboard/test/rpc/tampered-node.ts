import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** Turns the real result of a method into what the tampered node answers instead. */
export type Tamper = (result: unknown) => unknown

interface Teardown {
  teardown(fn: () => unknown): void
}

type Call = { id?: unknown; method?: unknown }
type Reply = { id?: unknown; result?: unknown; error?: unknown }

/**
 * A JSON-RPC proxy on 127.0.0.1 in front of a node (the simulator): requests and replies pass through,
 * except that the results of the methods given to `tamper` are replaced, in single calls and batches alike.
 */
export async function startTamperedNode(t: Teardown, target: string) {
  const tampers = new Map<string, Tamper>()
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (req.headers.authorization) headers.authorization = req.headers.authorization
    const upstream = await fetch(new URL(req.url ?? '/', target), { method: req.method, headers, body })
    let text = await upstream.text()
    try {
      const request = JSON.parse(body) as Call | Call[]
      const reply = JSON.parse(text) as Reply | Reply[]
      const methods = new Map((Array.isArray(request) ? request : [request]).map((call) => [call.id, call.method]))
      for (const item of Array.isArray(reply) ? reply : [reply]) {
        const tamper = tampers.get(String(methods.get(item?.id)))
        if (tamper && item && !item.error) item.result = tamper(item.result)
      }
      text = JSON.stringify(reply)
    } catch {
      // Not JSON-RPC (an HTML error page, say): passed on untouched.
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
    res.end(text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    /** From now on `method` answers what `change` makes of its real result. */
    tamper(method: string, change: Tamper) {
      tampers.set(method, change)
    },
    /** Every method answers its real result again. */
    restore() {
      tampers.clear()
    },
  }
}

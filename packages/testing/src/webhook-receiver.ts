import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface ReceivedRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
  at: number
}

/** What the receiver does with the n-th request (0-based): answer with a status (and body), or never answer. */
export type Responder = (request: ReceivedRequest, n: number) => { status: number; body?: string } | 'hang'

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  origin: string
  requests: ReceivedRequest[]
  respond(responder: Responder): void
  close(): Promise<void>
}

/** A real HTTP receiver on loopback that records every request it gets (webhook targets in tests). */
export async function startWebhookReceiver(responder: Responder = () => ({ status: 200 })): Promise<WebhookReceiver> {
  let respond = responder
  const requests: ReceivedRequest[] = []
  const sockets = new Set<Socket>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      }
      requests.push(received)
      const answer = respond(received, requests.length - 1)
      if (answer === 'hang') return
      res.writeHead(answer.status, { 'Content-Type': 'text/plain' })
      res.end(answer.body ?? '')
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      respond = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

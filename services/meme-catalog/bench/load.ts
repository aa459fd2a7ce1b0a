/**
 * A small bounded HTTP/1.1 load generator: a fixed number of keep-alive connections, one request in flight
 * on each, for a fixed time. Raw sockets and precomputed request bytes keep the client cheap, so the server
 * (a separate process) is what gets measured.
 */
import net from 'node:net'

export interface LoadOptions {
  port: number
  /** Request paths, used round-robin across all connections. */
  paths: string[]
  connections: number
  durationMs: number
  /** Requests answered before this are not counted (JIT and caches warm up). */
  warmupMs?: number
  /** Extra header lines for a path (each ending in CRLF), e.g. If-None-Match. */
  headers?: (path: string) => string
}

export interface LoadResult {
  requests: number
  perSecond: number
  p50: number
  p99: number
  errors: number
  /** Responses with a status other than 200. */
  non200: number
}

const HEADER_END = Buffer.from('\r\n\r\n')
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n')

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const requests = options.paths.map((path) =>
    Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n${options.headers?.(path) ?? ''}\r\n`),
  )
  const warmupMs = options.warmupMs ?? 0
  const start = performance.now()
  const countFrom = start + warmupMs
  const stopAt = countFrom + options.durationMs
  let next = 0
  let counted = 0
  let errors = 0
  let non200 = 0
  const latencies: number[] = []

  const connection = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ port: options.port, host: '127.0.0.1', noDelay: true })
      let buffer = Buffer.alloc(0)
      let sentAt = 0
      const send = () => {
        if (performance.now() >= stopAt) {
          socket.end()
          return resolve()
        }
        buffer = Buffer.alloc(0)
        sentAt = performance.now()
        socket.write(requests[next++ % requests.length])
      }
      socket.on('connect', send)
      socket.on('data', (chunk) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
        const headerEnd = buffer.indexOf(HEADER_END)
        if (headerEnd < 0) return
        const head = buffer.toString('latin1', 0, headerEnd)
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
        // A 304 has no body, whatever Content-Length it repeats.
        const notModified = head.startsWith('HTTP/1.1 304')
        const complete =
          notModified ||
          (length ? buffer.length >= headerEnd + 4 + Number(length[1]) : buffer.indexOf(CHUNKED_END, headerEnd) >= 0)
        if (!complete) return
        const now = performance.now()
        if (now >= countFrom && now < stopAt) {
          counted++
          latencies.push(now - sentAt)
          if (!head.startsWith('HTTP/1.1 200') && !notModified) non200++
        }
        send()
      })
      socket.on('error', () => {
        errors++
        resolve()
      })
      socket.on('close', () => resolve())
    })

  await Promise.all(Array.from({ length: options.connections }, connection))
  const elapsed = options.durationMs
  latencies.sort((a, b) => a - b)
  const at = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : 0)
  return { requests: counted, perSecond: (counted * 1000) / elapsed, p50: at(0.5), p99: at(0.99), errors, non200 }
}

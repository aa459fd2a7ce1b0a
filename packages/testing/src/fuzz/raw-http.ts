import { connect } from 'node:net'

/** Requests written byte by byte past any client library: what Node's HTTP parser itself must survive. */
export interface RawCase {
  name: string
  bytes: (host: string) => Buffer
}

export interface RawResult {
  /** Status of the first response line, or undefined when the server closed without answering. */
  status?: number
  head: string
}

const text = (s: string) => Buffer.from(s, 'latin1')

export function rawCases(path: string): RawCase[] {
  return [
    {
      name: 'header over 16 KB',
      bytes: (h) => text(`GET ${path} HTTP/1.1\r\nHost: ${h}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    },
    {
      name: '3000 headers',
      bytes: (h) =>
        text(`GET ${path} HTTP/1.1\r\nHost: ${h}\r\n${Array.from({ length: 3000 }, (_, i) => `X-${i}: v`).join('\r\n')}\r\n\r\n`),
    },
    { name: 'URL of 100 KB', bytes: (h) => text(`GET ${path}?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: ${h}\r\n\r\n`) },
    { name: 'garbage request line', bytes: () => text('\u0000\u0001GARBAGE \u00ff\r\n\r\n') },
    { name: 'unknown method', bytes: (h) => text(`BREW ${path} HTTP/1.1\r\nHost: ${h}\r\n\r\n`) },
    {
      name: 'Content-Length and Transfer-Encoding (smuggling)',
      bytes: (h) =>
        text(
          `POST ${path} HTTP/1.1\r\nHost: ${h}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /x HTTP/1.1\r\n\r\n`,
        ),
    },
    {
      name: 'two different Content-Lengths',
      bytes: (h) => text(`POST ${path} HTTP/1.1\r\nHost: ${h}\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}`),
    },
    { name: 'negative Content-Length', bytes: (h) => text(`POST ${path} HTTP/1.1\r\nHost: ${h}\r\nContent-Length: -1\r\n\r\n`) },
    {
      name: 'broken chunked body',
      bytes: (h) =>
        text(
          `POST ${path} HTTP/1.1\r\nHost: ${h}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        ),
    },
    { name: 'NUL in a header value', bytes: (h) => text(`GET ${path} HTTP/1.1\r\nHost: ${h}\r\nX-A: a\u0000b\r\n\r\n`) },
    { name: 'bare LF line endings', bytes: (h) => text(`GET ${path} HTTP/1.1\nHost: ${h}\n\n`) },
    {
      name: 'body shorter than Content-Length, then close',
      bytes: (h) =>
        text(`POST ${path} HTTP/1.1\r\nHost: ${h}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`),
    },
  ]
}

/** Writes the bytes, half-closes, and reads the first response head (or the close) within timeoutMs. */
export function rawExchange(port: number, bytes: Buffer, timeoutMs = 5000): Promise<RawResult> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    const finish = () => {
      clearTimeout(timer)
      socket.destroy()
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1]
      resolve({ status: status ? Number(status) : undefined, head: received.split('\r\n\r\n')[0] ?? '' })
    }
    const timer = setTimeout(finish, timeoutMs)
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
      if (received.includes('\r\n\r\n')) finish()
    })
    socket.on('error', finish)
    socket.on('close', finish)
    socket.on('connect', () => socket.end(bytes))
  })
}

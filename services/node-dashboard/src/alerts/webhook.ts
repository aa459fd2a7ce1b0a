import http from 'node:http'
import https from 'node:https'

export interface WebhookLimits {
  /** From the start of the request until the TCP (and TLS) connection is up. */
  connectTimeoutMs: number
  /** The whole exchange, answer included. */
  timeoutMs: number
}

export interface WebhookResult {
  ok: boolean
  /** The HTTP status, null when none arrived. */
  status: number | null
  /** A short cause without the URL ("timeout", "ECONNREFUSED", "HTTP 500"); null when ok. */
  error: string | null
  durationMs: number
}

/** Only this much of an answer is read (then discarded); the rest is cut off. */
export const MAX_ANSWER_BYTES = 64 * 1024

/**
 * POSTs one notification. Hand-written on node:http rather than fetch for a separate connect timeout
 * and an answer read capped and discarded; redirects are not followed (a 3xx is a failure) so the
 * body only ever goes to the URL it was entered for. Errors never name the URL: it is a secret.
 */
export function postWebhook(
  target: string,
  payload: { contentType: string; headers: Record<string, string>; body: string },
  limits: WebhookLimits,
): Promise<WebhookResult> {
  const started = Date.now()
  return new Promise((resolve) => {
    let settled = false
    let status: number | null = null
    const timers: NodeJS.Timeout[] = []
    const finish = (error: string | null) => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      const ok = error === null && status !== null && status >= 200 && status < 300
      resolve({ ok, status, error: ok ? null : (error ?? `HTTP ${status}`), durationMs: Date.now() - started })
    }
    let url: URL
    try {
      url = new URL(target)
    } catch {
      return finish('invalid URL')
    }
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null
    if (!client) return finish('unsupported scheme')
    const body = Buffer.from(payload.body, 'utf8')
    const headers: Record<string, string | number> = {
      ...payload.headers,
      'Content-Type': payload.contentType,
      'Content-Length': body.length,
      'User-Agent': 'node-dashboard-alerts',
    }
    // ntfy and generic receivers may take credentials in the URL (https://user:token@host/topic).
    if (url.username || url.password) {
      const user = decodeURIComponent(url.username)
      const password = decodeURIComponent(url.password)
      headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
    }
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        agent: false,
      },
      (response) => {
        status = response.statusCode ?? null
        let read = 0
        response.on('data', (chunk: Buffer) => {
          read += chunk.length
          // The status is what counts; a receiver that keeps talking is cut off.
          if (read > MAX_ANSWER_BYTES) {
            response.destroy()
            finish(null)
          }
        })
        response.on('end', () => finish(null))
        response.on('error', () => finish(status === null ? 'answer broken off' : null))
        response.on('close', () => finish(null))
      },
    )
    const abort = (reason: string) => () => {
      finish(reason)
      request.destroy()
    }
    timers.push(setTimeout(abort('timeout'), limits.timeoutMs))
    request.on('socket', (socket) => {
      if (!socket.connecting) return
      const connectTimer = setTimeout(abort('connect timeout'), limits.connectTimeoutMs)
      timers.push(connectTimer)
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer))
    })
    request.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? 'request failed'))
    request.end(body)
  })
}

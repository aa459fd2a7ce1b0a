import type { FastifyInstance } from 'fastify'
import { type BuildOptions, build, login } from '../helper.ts'

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface Answer {
  statusCode: number
  body: any
  raw: string
}

export interface AlertsApp {
  app: FastifyInstance
  cookie: string
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object): Promise<Answer>
}

// Fast retries and short timeouts; no sampler tick of its own: tests drive rounds with sampleOnce().
export const ALERT_TEST_ENV = {
  METRICS_SAMPLE_SECONDS: '3600',
  RPC_TIMEOUT_MS: '3000',
  ALERT_RETRY_BASE_MS: '200',
  ALERT_DELIVERY_ATTEMPTS: '4',
  ALERT_WEBHOOK_TIMEOUT_MS: '1500',
  ALERT_WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
}

/** A logged-in dashboard and a JSON caller for the alert routes. */
export async function alertsApp(t: Teardown, options: BuildOptions = {}): Promise<AlertsApp> {
  const app = await build(t, { ...options, env: { ...ALERT_TEST_ENV, ...options.env } })
  return withSession(app)
}

export async function withSession(app: FastifyInstance): Promise<AlertsApp> {
  const cookie = await login(app)
  return {
    app,
    cookie,
    async call(method, url, payload) {
      const res = await app.inject({ method, url, payload, headers: { cookie } })
      let body: unknown = null
      try {
        body = res.body ? JSON.parse(res.body) : null
      } catch {
        body = res.body
      }
      return { statusCode: res.statusCode, body, raw: res.body }
    },
  }
}

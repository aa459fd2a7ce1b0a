import { type Database, loadConfig } from '@app/common'
import { buildTestApp, type TestAppOptions } from '@app/testing'
import type { FastifyInstance } from 'fastify'
import { type App, buildApp } from '../src/app.ts'
import { configSchema } from '../src/config.ts'

export type BuildOptions = TestAppOptions<Database>

export const TEST_PASSWORD = 'correct horse battery staple'

/** Logs in as admin and returns the Cookie header value of the new session. */
export async function login(app: FastifyInstance, password = TEST_PASSWORD): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password } })
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`)
  const cookie = res.cookies.find((c) => c.name === 'dashboard_session')
  if (!cookie) throw new Error('login set no session cookie')
  return `${cookie.name}=${cookie.value}`
}

const dashboard = {
  build: (env: Record<string, string>, deps: { db?: Database }) => buildApp(loadConfig(configSchema, env), deps),
  // A known password for login(); pass DASHBOARD_PASSWORD: '' in env to test the generated one. Tests start
  // with no node settings: the demo node stays off unless a test turns it on (test/demo/).
  env: { DASHBOARD_PASSWORD: TEST_PASSWORD, DEMO_NODE: 'off' },
}

/** Starts the dashboard on a fresh database and closes both when the test ends. */
export function build(t: { teardown(fn: () => unknown): void }, options: BuildOptions = {}): Promise<App> {
  return buildTestApp(t, dashboard, options)
}

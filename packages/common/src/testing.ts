import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'

export interface TestDatabase {
  /** Set when the tests run against a real server (DATABASE_URL in the test environment). */
  url?: string
  /** A fresh folder for the embedded database and other service data. */
  dataDir: string
  cleanup(): Promise<void>
}

/**
 * A fresh, empty database for one test: a new database on the server named by DATABASE_URL
 * when set, otherwise a new folder for the embedded PGlite database.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-test-'))
  const serverUrl = process.env.DATABASE_URL
  if (!serverUrl) {
    return { dataDir, cleanup: () => rm(dataDir, { recursive: true, force: true }) }
  }
  const name = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    dataDir,
    async cleanup() {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      try {
        await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)
      } finally {
        await client.end()
      }
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** Whether something accepts TCP connections at a redis:// URL (tests that need Redis skip without it). */
export async function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname)
    const done = (up: boolean) => {
      socket.destroy()
      resolve(up)
    }
    socket.setTimeout(500)
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
    socket.once('timeout', () => done(false))
  })
}

/** A call a test made, by its OpenAPI operation, and the status it got. */
export interface AnsweredCall {
  operation: readonly [method: string, path: string]
  status: number
}

/** "GET /api/x 503" for every status an OpenAPI document does not list for the operation that answered it. */
export function undocumentedAnswers(
  doc: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> },
  calls: AnsweredCall[],
): string[] {
  const missing = calls.filter(({ operation: [method, path], status }) => !doc.paths[path]?.[method]?.responses?.[String(status)])
  return [...new Set(missing.map(({ operation: [method, path], status }) => `${method.toUpperCase()} ${path} ${status}`))]
}

/** Under this a parse of hostile text is linear in practice; a super-linear one takes seconds at these sizes. */
export const LINEAR_TIME_LIMIT_MS = 100

/** Runs `run` once and asserts it took under LINEAR_TIME_LIMIT_MS; returns its value, or what it threw. */
export function fast<T>(t: { ok(condition: boolean, message: string): unknown }, label: string, run: () => T): T | Error {
  const started = performance.now()
  let value: T | Error
  try {
    value = run()
  } catch (error) {
    value = error as Error
  }
  const ms = performance.now() - started
  t.ok(ms < LINEAR_TIME_LIMIT_MS, `${label}: ${ms.toFixed(1)} ms`)
  return value
}

/** `prefix`, then `unit` repeated, then `suffix`: about `size` characters of adversarial text. */
export const fill = (prefix: string, unit: string, suffix: string, size: number) =>
  prefix + unit.repeat(Math.max(0, Math.floor((size - prefix.length - suffix.length) / unit.length))) + suffix

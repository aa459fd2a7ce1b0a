import { mkdtemp, rm } from 'node:fs/promises'
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
 * when set, otherwise a new folder for the embedded PGlite database (opening it copies the template
 * made once per machine, see @app/common's createPgliteFolder, instead of running initdb per test).
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

import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { Umzug } from 'umzug'
import type { Database } from './types.ts'

// Any fixed 64-bit key works; it only has to be the same for every instance of a service.
const LOCK_KEY = 7_240_311_952

export interface MigrateLogger {
  info: (obj: unknown, msg?: string) => void
}

/**
 * Applies the `*.sql` files of `dir` in name order, once each, recorded in `schema_migrations`.
 * The whole run holds a transaction-scoped advisory lock so instances starting together do not
 * race; each migration runs in its own savepoint, so a failing one is undone whole (those before it
 * stay applied) and the error is thrown to stop start-up.
 */
export async function migrate(db: Database, dir: string, log?: MigrateLogger): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort()
  let failure: unknown
  const applied = await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY])
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    )
    const umzug = new Umzug({
      migrations: files.map((name) => ({
        name,
        async up() {
          const sql = await readFile(path.join(dir, name), 'utf8')
          await tx.exec('SAVEPOINT migration')
          try {
            await tx.exec(sql)
            await tx.exec('RELEASE SAVEPOINT migration')
          } catch (error) {
            await tx.exec('ROLLBACK TO SAVEPOINT migration')
            throw error
          }
        },
      })),
      storage: {
        async executed() {
          const { rows } = await tx.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
          return rows.map((r) => r.name)
        },
        async logMigration({ name }) {
          await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name])
        },
        async unlogMigration({ name }) {
          await tx.query('DELETE FROM schema_migrations WHERE name = $1', [name])
        },
      },
      logger: undefined,
    })
    const done: string[] = []
    umzug.on('migrated', ({ name }) => {
      done.push(name)
      log?.info({ migration: name }, 'migration applied')
    })
    try {
      await umzug.up()
    } catch (error) {
      // Commit the migrations before the failing one; the failing one was rolled back whole.
      failure = error
    }
    return done
  })
  if (failure) throw failure
  return applied
}

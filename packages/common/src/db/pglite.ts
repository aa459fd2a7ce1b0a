import { mkdir } from 'node:fs/promises'
import { PGlite, types } from '@electric-sql/pglite'
import type { Database, Queryable } from './types.ts'

type PGliteLike = Pick<PGlite, 'query' | 'exec'>

function queryable(db: PGliteLike): Queryable {
  return {
    async query(sql, params) {
      const result = await db.query(sql, params as unknown[])
      return { rows: result.rows as never[], rowCount: result.affectedRows ?? result.rows.length }
    },
    async exec(sql) {
      await db.exec(sql)
    },
  }
}

/** Embedded PostgreSQL (WASM) persisted under `dataDir`, or in memory for `memory://`. */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith('memory://')) await mkdir(dataDir, { recursive: true })
  const db = await PGlite.create(dataDir, { parsers: { [types.INT8]: (value: string) => Number(value) } })
  return {
    driver: 'pglite',
    ...queryable(db),
    transaction: (fn) => db.transaction((tx) => fn(queryable(tx))),
    async listen(channel, onPayload) {
      const unsubscribe = await db.listen(channel, onPayload)
      return async () => {
        await unsubscribe()
      }
    },
    async notify(channel, payload) {
      await db.query('SELECT pg_notify($1, $2)', [channel, payload])
    },
    async close() {
      await db.close()
    },
  }
}

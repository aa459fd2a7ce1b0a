import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { PGlite, types } from '@electric-sql/pglite'
import { copyChunks, copyStatement } from './copy.ts'
import type { Database, Queryable } from './types.ts'

type PGliteLike = Pick<PGlite, 'query' | 'exec'>

/**
 * PostgreSQL's memory settings inside the WebAssembly heap, which grows to its high-water mark and never
 * shrinks. initdb's 128 MB of shared buffers are all touched at start (about 120 MB resident for nothing
 * on a small board): the files sit in the operating system's page cache behind PGlite anyway, so a
 * small pool costs a system call per page on a miss, not a disk read. Sorts and VACUUM get bounded
 * memory too (they spill to temporary files past it).
 */
export const PGLITE_SETTINGS = {
  shared_buffers: '16MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '2MB',
  work_mem: '4MB',
} as const

const startParams = [
  ...PGlite.defaultStartParams,
  ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
]

function queryable(db: PGliteLike): Queryable {
  return {
    async query(sql, params) {
      const result = await db.query(sql, params as unknown[])
      return { rows: result.rows as never[], rowCount: result.affectedRows ?? result.rows.length }
    },
    async exec(sql) {
      await db.exec(sql)
    },
    async copyFrom(table, columns, rows) {
      // PGlite has no STDIN: each chunk goes in as a blob, bounded so a large load never sits whole in memory.
      let copied = 0
      for await (const chunk of copyChunks(rows, 8 << 20)) {
        const result = await db.query(copyStatement(table, columns, "'/dev/blob'"), [], { blob: new Blob([chunk]) })
        copied += result.affectedRows ?? 0
      }
      return copied
    },
  }
}

// Runs in a child process: PGlite (its module's URL) creates the database folder, then exits.
const initdbScript = `const { PGlite } = await import(process.argv[1])
const db = await PGlite.create(process.argv[2], { startParams: JSON.parse(process.argv[3]) })
await db.close()`

/**
 * A new database folder is made in a short-lived child process: initdb holds a second PostgreSQL, the
 * initdb module and a tar of the new folder at once (over 600 MB resident), memory a long-running
 * process would keep from its allocator after the garbage collector frees it.
 */
async function initializeInChild(dataDir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      initdbScript,
      import.meta.resolve('@electric-sql/pglite'),
      dataDir,
      JSON.stringify(startParams),
    ],
    { maxBuffer: 1024 * 1024 },
  )
}

/** Embedded PostgreSQL (WASM) persisted under `dataDir`, or in memory for `memory://`. */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith('memory://')) {
    await mkdir(dataDir, { recursive: true })
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await initializeInChild(dataDir)
  }
  const db = await PGlite.create(dataDir, { startParams, parsers: { [types.INT8]: (value: string) => Number(value) } })
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

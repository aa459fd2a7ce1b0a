import { existsSync } from 'node:fs'
import { mkdir, readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite, types } from '@electric-sql/pglite'
import { copyChunks, copyStatement } from './copy.ts'
import {
  copyPgliteTemplate,
  discardPgliteTemplate,
  ensurePgliteTemplate,
  InvalidTemplateError,
  initializeInChild,
  type PgliteInit,
  pgliteTemplateCacheDir,
  pgliteTemplateKey,
} from './pglite-template.ts'
import type { Database, Queryable } from './types.ts'

type PGliteLike = Pick<PGlite, 'query' | 'exec'>

/**
 * PostgreSQL's memory settings inside the WebAssembly heap, which grows to its high-water mark and never
 * shrinks. initdb's 128 MB of shared buffers are all touched at start (about 120 MB resident for nothing
 * on a small board): the files sit in the operating system's page cache behind PGlite anyway, so a
 * small pool costs a system call per page on a miss, not a disk read. Sorts and VACUUM get bounded
 * memory too (they spill to temporary files past it). initdb gets them as well: its bootstrap stays
 * within the heap's first 128 MB, and a folder's postgresql.conf holds them.
 */
export const PGLITE_SETTINGS = {
  shared_buffers: '16MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '2MB',
  work_mem: '4MB',
} as const

/** A service's own values for some of PGLITE_SETTINGS, applied when its database opens. */
export type PgliteSettings = Partial<Record<keyof typeof PGLITE_SETTINGS, string>>

const paramsOf = (settings: PgliteSettings) => Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])
const settingParams = paramsOf(PGLITE_SETTINGS)
const startParams = [...PGlite.defaultStartParams, ...settingParams]

function queryable(db: PGliteLike): Queryable {
  return {
    async query(sql, params) {
      const result = await db.query(sql, params as unknown[])
      return { rows: result.rows as never[], rowCount: result.affectedRows ?? result.rows.length }
    },
    async exec(sql) {
      await db.exec(sql)
    },
    async *copyTo(query) {
      // PGlite has no STDOUT either: the whole output comes back as one blob.
      const result = await db.query(`COPY (${query}) TO '/dev/blob'`)
      if (result.blob) yield Buffer.from(await result.blob.arrayBuffer())
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

/** initdb and first-start parameters of every new folder (a template is made for these). */
export const PGLITE_INIT: PgliteInit = { initdbParams: settingParams, startParams }

/** Where the build puts the template it ships (dist/pglite-template beside the compiled module). */
const shippedTemplates = fileURLToPath(new URL('./pglite-template/', import.meta.url))

/** Makes the template the build ships, so a service's first start copies it and runs no initdb. */
export async function buildPgliteTemplate(): Promise<string> {
  const { dir } = await ensurePgliteTemplate(shippedTemplates, PGLITE_INIT)
  for (const entry of await readdir(shippedTemplates)) {
    if (entry !== path.basename(dir)) await rm(path.join(shippedTemplates, entry), { recursive: true, force: true })
  }
  return dir
}

/**
 * A new database folder, copied from an initialized empty template: the one the build shipped, else
 * this user's cached one (made once, by initdb in a child process). initdb per folder costs over
 * 600 MB and seconds of CPU; a copy, 40 MB of files. Without a usable cache, initdb runs for the folder.
 */
export async function createPgliteFolder(dataDir: string, cacheDir?: string): Promise<void> {
  const shipped = path.join(shippedTemplates, pgliteTemplateKey(PGLITE_INIT))
  if (existsSync(shipped)) {
    try {
      return await copyPgliteTemplate(shipped, dataDir)
    } catch (error) {
      if (!(error instanceof InvalidTemplateError)) throw error
    }
  }
  const cache = cacheDir ?? (await pgliteTemplateCacheDir())
  if (!cache) return initializeInChild(dataDir, PGLITE_INIT)
  for (let attempt = 1; ; attempt++) {
    const { dir } = await ensurePgliteTemplate(cache, PGLITE_INIT)
    try {
      return await copyPgliteTemplate(dir, dataDir)
    } catch (error) {
      if (!(error instanceof InvalidTemplateError) || attempt === 2) throw error
      await discardPgliteTemplate(dir)
    }
  }
}

/**
 * Embedded PostgreSQL (WASM) persisted under `dataDir`, or in memory for `memory://`. `settings` apply at start
 * only: folders are still made from the one template (and its initdb settings).
 */
export async function openPgliteDatabase(dataDir: string, settings: PgliteSettings = {}): Promise<Database> {
  if (!dataDir.startsWith('memory://')) {
    await mkdir(dataDir, { recursive: true })
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await createPgliteFolder(dataDir)
  }
  const db = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, ...paramsOf({ ...PGLITE_SETTINGS, ...settings })],
    parsers: { [types.INT8]: (value: string) => Number(value) },
  })
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

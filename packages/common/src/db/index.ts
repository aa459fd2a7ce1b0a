import path from 'node:path'
import { openPgDatabase } from './pg.ts'
import { openPgliteDatabase } from './pglite.ts'
import type { Database } from './types.ts'

export { CopyTextReader } from './copy-reader.ts'
export { migrate } from './migrate.ts'
export { buildPgliteTemplate } from './pglite.ts'
export * from './types.ts'

export interface OpenDatabaseOptions {
  /** postgres:// URL of a real server; when absent the embedded database is used. */
  url?: string
  /** Folder of the embedded database (or `memory://`). */
  dataDir: string
  log?: { warn: (obj: unknown, msg?: string) => void }
}

export async function openDatabase({ url, dataDir, log }: OpenDatabaseOptions): Promise<Database> {
  if (url) return openPgDatabase(url, log)
  return openPgliteDatabase(dataDir.startsWith('memory://') ? dataDir : path.resolve(dataDir))
}

import path from 'node:path'
import { openPgDatabase } from './pg.ts'
import { openPgliteDatabase, type PgliteSettings } from './pglite.ts'
import type { Database } from './types.ts'

export { CopyTextReader } from './copy-reader.ts'
export { migrate } from './migrate.ts'
export { buildPgliteTemplate, type PgliteSettings } from './pglite.ts'
export * from './types.ts'

export interface OpenDatabaseOptions {
  /** postgres:// URL of a real server; when absent the embedded database is used. */
  url?: string
  /** Folder of the embedded database (or `memory://`). */
  dataDir: string
  log?: { warn: (obj: unknown, msg?: string) => void }
  /** The embedded database's memory settings where the service differs from the shared ones. */
  pglite?: PgliteSettings
}

export async function openDatabase({ url, dataDir, log, pglite }: OpenDatabaseOptions): Promise<Database> {
  if (url) return openPgDatabase(url, log)
  return openPgliteDatabase(dataDir.startsWith('memory://') ? dataDir : path.resolve(dataDir), pglite)
}

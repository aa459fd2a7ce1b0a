import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

/** The committed form of a document: stable key order from the routes, two-space indent, final newline. */
export function formatOpenapiDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`
}

/** What the export needs of an app: ready, its generated document, closed. */
export interface DocumentedApp {
  ready(): PromiseLike<unknown>
  swagger(): unknown
  close(): PromiseLike<unknown>
}

/**
 * Builds a service's app on a throwaway embedded database (`DATA_DIR` is handed to `build`; no listening
 * socket) and returns its OpenAPI document, as the export script and the staleness tests need it.
 */
export async function generateOpenapiDocument(name: string, build: (dataDir: string) => DocumentedApp): Promise<unknown> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `${name}-openapi-`))
  try {
    const app = build(dataDir)
    try {
      await app.ready()
      return app.swagger()
    } finally {
      await app.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '@app/common'
import { buildApp } from '../app.ts'
import { configSchema } from '../config.ts'
import { serviceRoot } from '../service-root.ts'

/** Where the committed copy of the document lives. */
export const OPENAPI_FILE = path.join(serviceRoot, 'openapi.json')

/** The committed form: stable key order from the routes, two-space indent, final newline. */
export function formatDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`
}

/**
 * Builds the app on a throwaway embedded database (no listening socket, no node) and returns its
 * OpenAPI document.
 */
export async function generateDocument(): Promise<unknown> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dashboard-openapi-'))
  // The password only lets the app start: the document does not depend on it.
  const config = loadConfig(configSchema, {
    LOG_LEVEL: 'silent',
    LOG_FORMAT: 'json',
    DATA_DIR: dataDir,
    DASHBOARD_PASSWORD: 'export',
  })
  const fastify = buildApp(config)
  try {
    await fastify.ready()
    return fastify.swagger()
  } finally {
    await fastify.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

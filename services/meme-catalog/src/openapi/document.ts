import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '@app/common'
import { buildApp } from '../app.ts'
import { configSchema } from '../config.ts'
import { serviceRoot } from '../service-root.ts'

/** Where the committed copy of the public document lives. */
export const OPENAPI_FILE = path.join(serviceRoot, 'openapi.json')

/** The committed form: stable key order from the routes, two-space indent, final newline. */
export function formatDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`
}

/**
 * Builds the app on a throwaway embedded database (no demo data, no listening socket) and
 * returns its public OpenAPI document.
 */
export async function generateDocument(): Promise<unknown> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'meme-openapi-'))
  const config = loadConfig(configSchema, {
    LOG_LEVEL: 'silent',
    LOG_FORMAT: 'json',
    DEMO_MEMES: 'false',
    DATA_DIR: dataDir,
    CAPTIONER: 'none',
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

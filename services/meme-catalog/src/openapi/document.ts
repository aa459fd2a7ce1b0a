import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fastifyOptions, loadConfig } from '@app/common'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import app from '../app.ts'
import { configSchema } from '../config.ts'

/** Where the committed copy of the public document lives. */
export const OPENAPI_FILE = path.join(path.dirname(path.dirname(path.dirname(new URL(import.meta.url).pathname))), 'openapi.json')

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
  const config = loadConfig(configSchema, { LOG_LEVEL: 'silent', DEMO_MEMES: 'false', DATA_DIR: dataDir, CAPTIONER: 'none' })
  // The embedded database can take long to open on a busy machine.
  const fastify = Fastify({
    ...fastifyOptions(config, { messageKey: 'error', validationStatus: 400, pretty: false }),
    pluginTimeout: 120_000,
  })
  try {
    await fastify.register(fp(app), { config })
    await fastify.ready()
    return fastify.swagger()
  } finally {
    await fastify.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

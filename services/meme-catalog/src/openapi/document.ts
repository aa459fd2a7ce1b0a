import path from 'node:path'
import { formatOpenapiDocument, generateOpenapiDocument, loadConfig } from '@app/common'
import { buildApp } from '../app.ts'
import { configSchema } from '../config.ts'
import { serviceRoot } from '../service-root.ts'

/** Where the committed copy of the public document lives. */
export const OPENAPI_FILE = path.join(serviceRoot, 'openapi.json')

export const formatDocument = formatOpenapiDocument

/** The app a document is generated from: a throwaway embedded database, no demo data, no captioner. */
export function documentApp(dataDir: string) {
  return buildApp(
    loadConfig(configSchema, {
      LOG_LEVEL: 'silent',
      LOG_FORMAT: 'json',
      DATA_DIR: dataDir,
      DEMO_MEMES: 'false',
      CAPTIONER: 'none',
    }),
  )
}

/** The public document the routes generate. */
export function generateDocument(): Promise<unknown> {
  return generateOpenapiDocument('meme', documentApp)
}

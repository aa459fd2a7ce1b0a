import path from 'node:path'
import { formatOpenapiDocument, generateOpenapiDocument, loadConfig } from '@app/common'
import { buildApp } from '../app.ts'
import { configSchema } from '../config.ts'
import { serviceRoot } from '../service-root.ts'

/** Where the committed copy of the document lives. */
export const OPENAPI_FILE = path.join(serviceRoot, 'openapi.json')

export const formatDocument = formatOpenapiDocument

/** The document the routes generate, from an app on a throwaway embedded database (no node needed). */
export function generateDocument(): Promise<unknown> {
  return generateOpenapiDocument('dashboard', (dataDir) =>
    buildApp(
      // The password only lets the app start: the document does not depend on it.
      loadConfig(configSchema, {
        LOG_LEVEL: 'silent',
        LOG_FORMAT: 'json',
        DATA_DIR: dataDir,
        DASHBOARD_PASSWORD: 'export',
        DEMO_NODE: 'off',
      }),
    ),
  )
}

import path from 'node:path'
import { generateOpenapiDocument, loadConfig } from '@app/common'
import { buildApp } from '../app.ts'
import { configSchema } from '../config.ts'
import { serviceRoot } from '../service-root.ts'

/** Where the committed copy of the GIPHY-compatible API's document lives. */
export const GIPHY_OPENAPI_FILE = path.join(serviceRoot, 'openapi.giphy.json')

/** /v1/openapi.json as the routes generate it, from an app on a throwaway embedded database (no demo data). */
export async function generateGiphyDocument(): Promise<unknown> {
  let document: unknown
  await generateOpenapiDocument('meme-giphy', (dataDir) => {
    const app = buildApp(
      loadConfig(configSchema, {
        LOG_LEVEL: 'silent',
        LOG_FORMAT: 'json',
        DATA_DIR: dataDir,
        DEMO_MEMES: 'false',
        CAPTIONER: 'none',
      }),
    )
    // The document lives in the /v1 scope: asked for as a client would, once the app is ready.
    return {
      ready: async () => {
        await app.ready()
        document = (await app.inject('/v1/openapi.json')).json()
      },
      swagger: () => document,
      close: () => app.close(),
    }
  })
  return document
}

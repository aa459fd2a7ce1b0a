import path from 'node:path'
import { generateOpenapiDocument } from '@app/common'
import { documentApp } from '../openapi/document.ts'
import { serviceRoot } from '../service-root.ts'

/** Where the committed copy of the GIPHY-compatible API's document lives. */
export const GIPHY_OPENAPI_FILE = path.join(serviceRoot, 'openapi.giphy.json')

/** /v1/openapi.json as the routes generate it (from the same app as the public document). */
export async function generateGiphyDocument(): Promise<unknown> {
  let document: unknown
  await generateOpenapiDocument('meme-giphy', (dataDir) => {
    const app = documentApp(dataDir)
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

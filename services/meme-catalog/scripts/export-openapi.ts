// Writes services/meme-catalog/openapi.json and openapi.giphy.json from the route schemas, without starting a server.
import { writeFile } from 'node:fs/promises'
import { GIPHY_OPENAPI_FILE, generateGiphyDocument } from '../src/giphy/document.ts'
import { formatDocument, generateDocument, OPENAPI_FILE } from '../src/openapi/document.ts'

await writeFile(OPENAPI_FILE, formatDocument(await generateDocument()))
process.stdout.write(`wrote ${OPENAPI_FILE}\n`)
await writeFile(GIPHY_OPENAPI_FILE, formatDocument(await generateGiphyDocument()))
process.stdout.write(`wrote ${GIPHY_OPENAPI_FILE}\n`)

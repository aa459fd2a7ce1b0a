// Writes services/node-dashboard/openapi.json from the route schemas, without starting a server.
import { writeFile } from 'node:fs/promises'
import { formatDocument, generateDocument, OPENAPI_FILE } from '../src/openapi/document.ts'

await writeFile(OPENAPI_FILE, formatDocument(await generateDocument()))
process.stdout.write(`wrote ${OPENAPI_FILE}\n`)

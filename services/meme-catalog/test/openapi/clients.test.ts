import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { clientsFolder, compileStrict, generateClients } from '@app/testing/openapi'
import t from 'tap'
import { OPENAPI_FILE } from '../../src/openapi/document.ts'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'
import { jpegImage } from '../uploads/fixtures.ts'

// The program a client author would write: list, search, get, tags and an upload, once with each generated
// client. It must compile under tsc --strict against the generated types.
const program = `
import createClient from 'openapi-fetch'
import type { paths } from './openapi-typescript.ts'
import { createClient as createHeyClient } from './hey-api/client/index.ts'
import { addMeme, getMeme, listMemes, listTags } from './hey-api/sdk.gen.ts'

export interface Outcome { listed: number; found: string[]; caption: string; tags: string[]; uploaded: number; status: string }

export async function withOpenapiFetch(baseUrl: string, id: string, image: Blob): Promise<Outcome> {
  const client = createClient<paths>({ baseUrl })
  const list = await client.GET('/api/memes', { params: { query: { page: 1, pageSize: 12 } } })
  if (!list.data) throw new Error(\`list: \${list.response.status}\`)
  const search = await client.GET('/api/memes', { params: { query: { q: 'generated client', tag: ['cats'] } } })
  if (!search.data) throw new Error(\`search: \${search.response.status}\`)
  const one = await client.GET('/api/memes/{id}', { params: { path: { id } } })
  if (!one.data) throw new Error(\`get: \${one.response.status} \${one.error?.error}\`)
  const tags = await client.GET('/api/tags')
  if (!tags.data) throw new Error(\`tags: \${tags.response.status}\`)
  const upload = await client.POST('/api/memes', {
    body: { meme: image },
    bodySerializer: (body) => {
      const form = new FormData()
      form.append('meme', body.meme, 'upload.jpg')
      return form
    },
  })
  if (!upload.data) throw new Error(\`upload: \${upload.response.status} \${upload.error?.error}\`)
  return {
    listed: list.data.total,
    found: search.data.memes.map((meme) => meme.id),
    caption: one.data.meme.caption,
    tags: tags.data.tags,
    uploaded: upload.response.status,
    status: upload.data.meme.status,
  }
}

export async function withHeyApi(baseUrl: string, id: string, image: Blob): Promise<Outcome> {
  const client = createHeyClient({ baseUrl })
  const list = await listMemes({ client, query: { page: 1, pageSize: 12 } })
  if (!list.data) throw new Error(\`list: \${list.response?.status}\`)
  const search = await listMemes({ client, query: { q: 'generated client', tag: ['cats'] } })
  if (!search.data) throw new Error(\`search: \${search.response?.status}\`)
  const one = await getMeme({ client, path: { id } })
  if (!one.data) throw new Error(\`get: \${one.response?.status}\`)
  const tags = await listTags({ client })
  if (!tags.data) throw new Error(\`tags: \${tags.response?.status}\`)
  const upload = await addMeme({ client, body: { meme: image } })
  if (!upload.data || !upload.response) throw new Error(\`upload: \${upload.response?.status}\`)
  return {
    listed: list.data.total,
    found: search.data.memes.map((meme) => meme.id),
    caption: one.data.meme.caption,
    tags: tags.data.tags,
    uploaded: upload.response.status,
    status: upload.data.meme.status,
  }
}
`

t.test('clients generated from the committed openapi.json compile under --strict and drive a live catalog', async (t) => {
  const doc = JSON.parse(await readFile(OPENAPI_FILE, 'utf8'))
  const folder = await clientsFolder('catalog')
  t.teardown(folder.cleanup)
  // The instance starts while the clients are generated and compiled.
  const [app] = await Promise.all([
    build(t, { env: { CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' } }),
    (async () => {
      await generateClients(doc, folder.dir)
      await writeFile(path.join(folder.dir, 'program.ts'), program)
      await t.resolves(compileStrict(folder.dir), 'tsc --strict compiles both clients and the program')
    })(),
  ])
  await ready(app)
  const id = await addMeme(app, { caption: 'a generated client found me', tags: ['cats'] })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no TCP address')
  const baseUrl = `http://127.0.0.1:${address.port}`
  const { withOpenapiFetch, withHeyApi } = await import(path.join(folder.dir, 'program.ts'))
  for (const [name, run, seed] of [
    ['openapi-typescript + openapi-fetch', withOpenapiFetch, 61],
    ['@hey-api/openapi-ts', withHeyApi, 62],
  ] as const) {
    const image = new Blob([new Uint8Array(await jpegImage(seed))], { type: 'image/jpeg' })
    const outcome = await run(baseUrl, id, image)
    t.match(outcome, { found: [id], caption: 'a generated client found me', tags: ['cats'] }, `${name}: reads`)
    t.ok(outcome.listed >= 1, `${name}: the list counts the meme`)
    t.ok([201, 202].includes(outcome.uploaded), `${name}: the upload is accepted (${outcome.uploaded})`)
    t.ok(['approved', 'pending'].includes(outcome.status), `${name}: the stored meme's status`)
  }
})

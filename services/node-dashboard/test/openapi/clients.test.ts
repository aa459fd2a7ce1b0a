import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { startNodeSimulator } from '@app/node-simulator'
import { clientsFolder, compileStrict, generateClients } from '@app/testing/openapi'
import t from 'tap'
import { OPENAPI_FILE } from '../../src/openapi/document.ts'
import { build, TEST_PASSWORD } from '../helper.ts'

const RPC_PASSWORD = 'clients-rpc-Secret'

// The program a client author would write: login, settings, summary and an RPC call, once with each
// generated client. It must compile under tsc --strict against the generated types.
const program = `
import createClient from 'openapi-fetch'
import type { paths } from './openapi-typescript.ts'
import { createClient as createHeyClient } from './hey-api/client/index.ts'
import { callRpc, getDashboardSummary, login, updateSettings } from './hey-api/sdk.gen.ts'

export interface Node { url: string; user: string; password: string }
export interface Outcome { username: string; rpcUrl: string; chain: string | undefined; blocks: unknown }

/** The session cookie of a login answer, as the Cookie header of the next requests. */
function sessionOf(response: Response): string {
  const cookie = response.headers.get('set-cookie')
  if (!cookie) throw new Error('login set no cookie')
  return cookie.split(';')[0]
}

export async function withOpenapiFetch(baseUrl: string, password: string, node: Node): Promise<Outcome> {
  const client = createClient<paths>({ baseUrl })
  const loggedIn = await client.POST('/api/auth/login', { body: { username: 'admin', password } })
  if (!loggedIn.data) throw new Error(\`login: \${loggedIn.response.status}\`)
  const headers = { cookie: sessionOf(loggedIn.response) }
  const saved = await client.PUT('/api/settings', {
    headers,
    body: { rpc_url: node.url, rpc_username: node.user, rpc_password: node.password, rpc_wallet: '' },
  })
  if (!saved.data) throw new Error(\`settings: \${saved.response.status}\`)
  const summary = await client.GET('/api/dashboard/summary', { headers })
  if (!summary.data) throw new Error(\`summary: \${summary.response.status}\`)
  const call = await client.POST('/api/rpc/call', { headers, body: { method: 'getblockcount', params: [] } })
  if (!call.data) throw new Error(\`rpc call: \${call.response.status} \${call.error?.detail}\`)
  return { username: loggedIn.data.username, rpcUrl: saved.data.rpc_url, chain: summary.data.chain.chain, blocks: call.data.result }
}

export async function withHeyApi(baseUrl: string, password: string, node: Node): Promise<Outcome> {
  const client = createHeyClient({ baseUrl })
  const loggedIn = await login({ client, body: { username: 'admin', password } })
  if (!loggedIn.data || !loggedIn.response) throw new Error(\`login: \${loggedIn.response?.status}\`)
  const headers = { cookie: sessionOf(loggedIn.response) }
  const saved = await updateSettings({
    client,
    headers,
    body: { rpc_url: node.url, rpc_username: node.user, rpc_password: node.password, rpc_wallet: '' },
  })
  if (!saved.data) throw new Error(\`settings: \${saved.response?.status}\`)
  const summary = await getDashboardSummary({ client, headers })
  if (!summary.data) throw new Error(\`summary: \${summary.response?.status}\`)
  const call = await callRpc({ client, headers, body: { method: 'getblockcount', params: [] } })
  if (!call.data) throw new Error(\`rpc call: \${call.response?.status}\`)
  return { username: loggedIn.data.username, rpcUrl: saved.data.rpc_url, chain: summary.data.chain.chain, blocks: call.data.result }
}
`

t.test('clients generated from the committed openapi.json compile under --strict and drive a live dashboard', async (t) => {
  const doc = JSON.parse(await readFile(OPENAPI_FILE, 'utf8'))
  const folder = await clientsFolder('dashboard')
  t.teardown(folder.cleanup)
  // The instance and the node start while the clients are generated and compiled.
  const [app, sim] = await Promise.all([
    build(t),
    startNodeSimulator({ password: RPC_PASSWORD }),
    (async () => {
      await generateClients(doc, folder.dir)
      await writeFile(path.join(folder.dir, 'program.ts'), program)
      await t.resolves(compileStrict(folder.dir), 'tsc --strict compiles both clients and the program')
    })(),
  ])
  t.teardown(() => sim.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no TCP address')
  const baseUrl = `http://127.0.0.1:${address.port}`
  const node = { url: sim.url, user: sim.user, password: RPC_PASSWORD }
  const { withOpenapiFetch, withHeyApi } = await import(path.join(folder.dir, 'program.ts'))
  for (const [name, run] of [
    ['openapi-typescript + openapi-fetch', withOpenapiFetch],
    ['@hey-api/openapi-ts', withHeyApi],
  ] as const) {
    const outcome = await run(baseUrl, TEST_PASSWORD, node)
    t.match(outcome, { username: 'admin', rpcUrl: sim.url, chain: 'regtest', blocks: Number }, name)
    t.ok((outcome.blocks as number) >= 101, `${name}: the node's block count`)
  }
})

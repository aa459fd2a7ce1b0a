import { HttpError } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static } from '@sinclair/typebox'
import type { Config } from '../config.ts'
import { described, errorResponse } from '../schemas.ts'
import { checkRpc, checkSsh } from './connection-check.ts'
import type { NodeSettings, NodeSettingsUpdate } from './repository.ts'
import { RpcCheckView, SECRET_MASK, SettingsBody, SettingsView, SshCheckView } from './schemas.ts'
import { keepSecretsBound } from './secret-binding.ts'

function masked(settings: NodeSettings, demoNode: boolean) {
  return {
    ...settings,
    rpc_password: settings.rpc_password ? SECRET_MASK : '',
    ssh_password: settings.ssh_password ? SECRET_MASK : '',
    demo_node: demoNode,
  }
}

const invalid = (field: string, message: string) => new HttpError(422, `Invalid body field '${field}': ${message}`)

/** '' or an http(s) URL without credentials in it (those belong in rpc_username/rpc_password). */
function checkRpcUrl(value: string): void {
  if (value === '') return
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw invalid('rpc_url', 'must be an http:// or https:// URL')
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw invalid('rpc_url', 'must be an http:// or https:// URL')
  }
  if (url.username || url.password) throw invalid('rpc_url', 'must not contain credentials; use rpc_username and rpc_password')
  if (url.search || url.hash) throw invalid('rpc_url', 'must not contain a query or fragment')
}

/** '' or an absolute path (a relative one would depend on the dashboard's working directory). */
function checkCookiePath(value: string): void {
  if (value !== '' && !value.startsWith('/')) throw invalid('rpc_cookie_path', 'must be an absolute path')
}

/** The body as a change to the stored settings: values checked, masked secrets meaning "keep". */
function updateOf(body: Static<typeof SettingsBody>): NodeSettingsUpdate {
  const update: NodeSettingsUpdate = { ...body }
  if (update.rpc_url !== undefined) checkRpcUrl(update.rpc_url)
  if (update.rpc_cookie_path !== undefined) checkCookiePath(update.rpc_cookie_path)
  for (const secret of ['rpc_password', 'ssh_password'] as const) {
    if (update[secret] === SECRET_MASK) delete update[secret]
  }
  return update
}

// Trim before validation so patterns and limits apply to the stored value.
async function trimBody(request: { body: unknown }) {
  const body = request.body as Record<string, unknown> | null
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body)) if (typeof value === 'string') body[key] = value.trim()
  }
}

const CHECK_DESCRIPTION =
  'Tests the stored settings with the changes in the body applied, without saving them. A stored password or cookie ' +
  'path joins the test only under the rule of updateSettings (same target), so a test never sends it anywhere new.'

export const settingsRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  /** The settings a test uses: the stored ones with the body's changes, secrets kept bound to their target. */
  const candidate = async (body: Static<typeof SettingsBody>): Promise<NodeSettings> => {
    // The saved settings, not the demo node's: a test is about the node the user is setting up.
    const current = await fastify.settingsCache.stored()
    return { ...current, ...keepSecretsBound(current, updateOf(body)) }
  }

  fastify.get(
    '/api/settings',
    {
      config: { auth: true },
      schema: {
        operationId: 'getSettings',
        summary: 'Node connection and control settings (secrets masked)',
        description:
          "The persisted settings, never the demo node's; `demo_node` says whether the dashboard is watching its demo node.",
        tags: ['settings'],
        response: { 200: described(SettingsView, 'The stored settings, secrets masked.'), ...errorResponse(401) },
      },
    },
    async () => masked(await fastify.settingsCache.stored(), fastify.demoNode.current() !== null),
  )

  fastify.put(
    '/api/settings',
    {
      config: { auth: true },
      schema: {
        operationId: 'updateSettings',
        summary: 'Validate and save node settings; absent fields keep their stored value',
        description:
          'A stored rpc_password or rpc_cookie_path is cleared when rpc_url moves to another scheme, host or port, and a stored ssh_password ' +
          'when ssh_host, ssh_port, ssh_username or ssh_host_key_fingerprint changes, unless the same request sends it again.',
        tags: ['settings'],
        body: SettingsBody,
        response: {
          200: described(SettingsView, 'Saved: the stored settings, secrets masked.'),
          ...errorResponse(401, 403, 422),
        },
      },
      preValidation: trimBody,
    },
    async (request) => {
      const update = updateOf(request.body)
      const saved = await fastify.settingsCache.updateFrom((current) => keepSecretsBound(current, update))
      return masked(saved, fastify.demoNode.current() !== null)
    },
  )

  fastify.post(
    '/api/settings/check/rpc',
    {
      config: { auth: true },
      schema: {
        operationId: 'checkRpcConnection',
        summary: 'Test the node RPC connection: node version and chain, or the exact failure',
        description: CHECK_DESCRIPTION,
        tags: ['settings'],
        body: SettingsBody,
        response: {
          200: described(RpcCheckView, 'The test ran: `ok` says whether the node answered.'),
          ...errorResponse(401, 403, 422),
        },
      },
      preValidation: trimBody,
    },
    async (request) => checkRpc(fastify.rpc, await candidate(request.body)),
  )

  fastify.post(
    '/api/settings/check/ssh',
    {
      config: { auth: true },
      schema: {
        operationId: 'checkSshConnection',
        summary: 'Test the SSH login to the node host: `<node_binary> -version`, or the exact failure',
        description: `${CHECK_DESCRIPTION} The host key seen is reported, never recorded by a test.`,
        tags: ['settings'],
        body: SettingsBody,
        response: {
          200: described(SshCheckView, 'The test ran: `ok` says whether the login and the version command worked.'),
          ...errorResponse(401, 403, 422),
        },
      },
      preValidation: trimBody,
    },
    async (request) => checkSsh(await candidate(request.body), config.SSH_TIMEOUT_MS),
  )
}

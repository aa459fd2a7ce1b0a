import { HttpError } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { described, errorResponse } from '../schemas.ts'
import type { NodeSettings, NodeSettingsUpdate } from './repository.ts'
import { SECRET_MASK, SettingsBody, SettingsView } from './schemas.ts'
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

export const settingsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
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
          'A stored rpc_password is cleared when rpc_url moves to another scheme, host or port, and a stored ssh_password ' +
          'when ssh_host, ssh_port, ssh_username or ssh_host_key_fingerprint changes, unless the same request sends it again.',
        tags: ['settings'],
        body: SettingsBody,
        response: {
          200: described(SettingsView, 'Saved: the stored settings, secrets masked.'),
          ...errorResponse(401, 403, 422),
        },
      },
      // Trim before validation so patterns and limits apply to the stored value.
      preValidation: async (request) => {
        const body = request.body as Record<string, unknown> | null
        if (body && typeof body === 'object' && !Array.isArray(body)) {
          for (const [key, value] of Object.entries(body)) if (typeof value === 'string') body[key] = value.trim()
        }
      },
    },
    async (request) => {
      const update: NodeSettingsUpdate = { ...request.body }
      if (update.rpc_url !== undefined) checkRpcUrl(update.rpc_url)
      for (const secret of ['rpc_password', 'ssh_password'] as const) {
        if (update[secret] === SECRET_MASK) delete update[secret]
      }
      const saved = await fastify.settingsCache.updateFrom((current) => keepSecretsBound(current, update))
      return masked(saved, fastify.demoNode.current() !== null)
    },
  )
}

import { forbidden, notFound } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sessionUser } from '../auth/plugin.ts'
import type { Config } from '../config.ts'
import { isRpcError } from '../rpc/errors.ts'
import { checkedReply } from '../rpc/replies.ts'
import { described, errorAnswer, errorResponse } from '../schemas.ts'
import { HELP_REPLY_BYTES, parseHelpArguments, parseHelpListing } from './help-parser.ts'
import { hasSecretParams, riskOf } from './risk.ts'
import { CommandsResponse, HelpParams, HelpResponse, RiskResponse, RpcCallBody, RpcCallResponse } from './schemas.ts'

export const explorerRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  const denied = new Set(
    config.RPC_METHOD_DENYLIST.split(',')
      .map((m) => m.trim().toLowerCase())
      .filter(Boolean),
  )

  fastify.post(
    '/api/rpc/call',
    {
      config: { auth: true },
      schema: {
        operationId: 'callRpc',
        summary: 'Run one JSON-RPC method on the node',
        description:
          'Methods in RPC_METHOD_DENYLIST answer 403. Every call is audited (user, method, time, outcome; never params).',
        tags: ['rpc'],
        body: RpcCallBody,
        response: {
          200: described(RpcCallResponse, "The node's result."),
          ...errorResponse(400, 401, 422, 502),
          403: errorAnswer('The method is in RPC_METHOD_DENYLIST, or the request is cross-site.'),
        },
      },
    },
    async (request) => {
      const { method, params = [], wallet } = request.body
      const username = sessionUser(request)
      if (denied.has(method.toLowerCase())) {
        await fastify.audit.record({ username, kind: 'rpc', name: method, ok: false, outcome: 'denied by RPC_METHOD_DENYLIST' })
        throw forbidden(`RPC method '${method}' is refused by this dashboard (RPC_METHOD_DENYLIST).`)
      }
      const settings = await fastify.settingsCache.get()
      const endpoint = wallet ?? settings.rpc_wallet
      const started = performance.now()
      try {
        const result = await fastify.rpc.call(method, params, { wallet: endpoint, settings })
        const duration = Math.round((performance.now() - started) * 10) / 10
        await fastify.audit.record({ username, kind: 'rpc', name: method, ok: true, outcome: 'ok' })
        return { method, wallet: endpoint || null, result: result ?? null, duration_ms: duration }
      } catch (error) {
        // The kind and code only: a node's error text can echo a parameter (an address, a label).
        const outcome = isRpcError(error) ? `${error.kind}${error.rpcCode === undefined ? '' : ` ${error.rpcCode}`}` : 'error'
        await fastify.audit.record({ username, kind: 'rpc', name: method, ok: false, outcome })
        throw error
      }
    },
  )

  fastify.get(
    '/api/rpc/commands',
    {
      config: { auth: true },
      schema: {
        operationId: 'listRpcCommands',
        summary: "The node's `help` listing parsed into categories and methods with their argument synopsis",
        description: '502 when the node fails, or answers `help` with something other than text or with more than 256 KB.',
        tags: ['rpc'],
        response: { 200: described(CommandsResponse, 'The method catalog by category.'), ...errorResponse(400, 401, 502) },
      },
    },
    async () => {
      const text = checkedReply('help', await fastify.rpc.call('help', [], { wallet: '', maxReplyBytes: HELP_REPLY_BYTES }))
      const categories = parseHelpListing(text).map((category) => ({
        name: category.name,
        methods: category.methods.map((m) => ({ ...m, risk: riskOf(m.name) })),
      }))
      return { count: categories.reduce((n, c) => n + c.methods.length, 0), categories }
    },
  )

  fastify.get(
    '/api/rpc/help/:method_name',
    {
      config: { auth: true },
      schema: {
        operationId: 'getRpcHelp',
        summary: 'The full help text of one method, its parsed arguments and its risk class',
        description:
          'A method the node does not know answers 404 {"detail": "Unknown RPC method \'<name>\' ..."}; 502 when the node ' +
          'fails, or answers `help` with something other than text or with more than 256 KB.',
        tags: ['rpc'],
        params: HelpParams,
        response: {
          200: described(HelpResponse, "The method's help text."),
          ...errorResponse(400, 401, 422, 502),
          404: errorAnswer('The node does not know this method.'),
        },
      },
    },
    async (request) => {
      const method = request.params.method_name
      const text = checkedReply('help', await fastify.rpc.call('help', [method], { wallet: '', maxReplyBytes: HELP_REPLY_BYTES }))
      // The node answers an unknown name with a normal result, not an error.
      if (text.startsWith('help: unknown command')) {
        throw notFound(`Unknown RPC method '${method}': the node's help does not list it.`)
      }
      return {
        method,
        help: text,
        risk: riskOf(method),
        secret_params: hasSecretParams(method),
        arguments: parseHelpArguments(text),
      }
    },
  )

  fastify.get(
    '/api/rpc/risk/:method_name',
    {
      config: { auth: true },
      schema: {
        operationId: 'getRpcMethodRisk',
        summary: "A method's risk class from the dashboard's table, without asking the node",
        description:
          "Also for methods the node's help does not list (invalidateblock and other hidden ones); a name the table does " +
          'not know answers changes_state.',
        tags: ['rpc'],
        params: HelpParams,
        response: { 200: described(RiskResponse, "The method's class."), ...errorResponse(400, 401, 422) },
      },
    },
    async (request) => {
      const method = request.params.method_name
      return { method, risk: riskOf(method), secret_params: hasSecretParams(method) }
    },
  )
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sessionUser } from '../auth/plugin.ts'
import type { Config } from '../config.ts'
import { described, errorAnswer, errorResponse } from '../schemas.ts'
import { NodeConfigBody, NodeConfigSaved, NodeConfigView } from './schemas.ts'
import { type NodeConfigDeps, readNodeConfig, saveNodeConfig } from './use-cases.ts'

export const nodeConfigRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  const deps: NodeConfigDeps = { db: fastify.db, settings: fastify.settingsCache, sshTimeoutMs: config.SSH_TIMEOUT_MS }

  fastify.get(
    '/api/node/config',
    {
      config: { auth: true },
      schema: {
        operationId: 'getNodeConfig',
        summary: "Read the node's config file over SSH (secrets masked)",
        description:
          'Reads config_path on the node host as the SSH account of the settings. Only a regular file of at most 256 KiB; ' +
          '404 when it does not exist, 422 when it is not a regular file or too large, 502 when SSH fails.',
        tags: ['node config'],
        response: {
          200: described(NodeConfigView, 'The file, secrets masked, with its SHA-256 and common options.'),
          ...errorResponse(400, 401, 502),
          404: errorAnswer('config_path does not exist on the node host.'),
          422: errorAnswer('The file is not a regular file, is larger than 256 KiB or is not UTF-8 text.'),
        },
      },
    },
    async () => readNodeConfig(deps),
  )

  fastify.put(
    '/api/node/config',
    {
      config: { auth: true },
      schema: {
        operationId: 'saveNodeConfig',
        summary: "Save the node's config file over SSH: checked, atomic, backed up, audited",
        description:
          "Checks the common options with bitcoind's rules (422 naming the line), then, if the file still has `sha256` " +
          '(409 otherwise), writes a temporary file beside it with the same owner and mode, keeps the old one as ' +
          '`<file>.bak-<UTC stamp>` and renames the new one into place. The save is audited with a diff of the masked texts. ' +
          'The node reads its config at start: restart it to apply.',
        tags: ['node config'],
        body: NodeConfigBody,
        response: {
          200: described(NodeConfigSaved, 'Saved (or unchanged): the new file, the backup and the diff.'),
          ...errorResponse(400, 401, 403, 502),
          404: errorAnswer('config_path does not exist on the node host.'),
          409: errorAnswer('The file changed on the node host since it was loaded (or while saving).'),
          422: errorAnswer(
            'A value bitcoind refuses (the detail names the line), a masked secret with no stored value, or a file that cannot be edited.',
          ),
        },
      },
    },
    async (request) => saveNodeConfig(deps, request.body.text, request.body.sha256, sessionUser(request)),
  )
}

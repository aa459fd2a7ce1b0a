import { HttpError } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sessionUser } from '../auth/plugin.ts'
import type { Config } from '../config.ts'
import { type PhaseLog, phaseLog } from '../lifecycle/phases.ts'
import { actionOutcome } from '../prometheus/registry.ts'
import { described, errorResponse } from '../schemas.ts'
import { sshNodeHost } from './node-host.ts'
import type { ActionName } from './repository.ts'
import { ActionFailure, ActionResult, StartReindexBody } from './schemas.ts'
import {
  type ActionDeps,
  ActionError,
  type ActionSteps,
  restartAction,
  startAction,
  startReindexAction,
  stopAction,
} from './service.ts'

const WAITS =
  ' Then waits until the node answers RPC (getblockchaininfo) or START_WAIT_MS passes, recording `phases`; a node still ' +
  'warming up at the bound is a success. A node that exits or never answers is a 502 with `debug_log`, the tail of its debug.log read over SSH.'

const ACTIONS: Record<
  ActionName,
  {
    run: (deps: ActionDeps, phases: PhaseLog) => Promise<ActionSteps>
    operationId: string
    summary: string
    description: string
  }
> = {
  stop: {
    run: stopAction,
    operationId: 'stopNode',
    summary: 'Stop the node (RPC stop)',
    description: 'Calls the RPC `stop`. 502 when the node cannot be reached or refuses.',
  },
  start: {
    run: startAction,
    operationId: 'startNode',
    summary: 'Start the node over SSH',
    description:
      'Runs `<node_binary> -conf=<config_path> -daemon` (every value single-quoted) on ssh_host as ssh_username. ' +
      '400 names missing settings; 502 for a connection, authentication, host key or timeout failure or a non-zero exit, with the remote payload. ' +
      'While the demo node is in use (no node settings saved), it starts the demo node in process instead; `ssh` then describes that start.' +
      WAITS,
  },
  restart: {
    run: restartAction,
    operationId: 'restartNode',
    summary: 'Restart the node (RPC stop, then SSH start)',
    description:
      'RPC stop (a node already down is fine), then the SSH start, retried while the old process still holds its ' +
      'data-directory lock ("Cannot obtain a lock on directory"), for at most RESTART_START_WAIT_MS. The demo node restarts in process.' +
      WAITS,
  },
  'start-reindex': {
    run: startReindexAction,
    operationId: 'startNodeReindex',
    summary: 'Start the node with -reindex over SSH (explicitly confirmed)',
    description:
      'The start command with `-reindex` appended, for a node whose debug.log asks for it ("Please restart with -reindex", ' +
      '"Corrupted block database detected"). The body must be `{"confirm": true}` (422 otherwise): the node rebuilds its block ' +
      'index and chainstate from the block files, which takes hours on mainnet. Audited like the other actions.' +
      WAITS,
  },
}

function outcomeText(action: ActionName, steps: ActionSteps): string {
  if (action === 'stop') return steps.rpc?.result ?? 'stopped'
  const attempts = steps.ssh?.attempts ?? 1
  const last = steps.phases?.at(-1)
  const now =
    last?.phase === 'warming_up'
      ? `; still warming up: ${last.message ?? ''}`
      : last?.phase === 'running'
        ? '; answering RPC'
        : ''
  return `${steps.rpc && !steps.rpc.node_was_running ? 'node was already down; ' : ''}started${action === 'start-reindex' ? ' with -reindex' : ''} (exit 0${attempts > 1 ? `, ${attempts} attempts` : ''})${now}`
}

export const actionRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  const settings = fastify.settingsCache
  const deps: ActionDeps = {
    settings,
    rpc: fastify.rpc,
    // While the demo node is in use, start goes to it instead of over SSH.
    nodeHost: async (current) => {
      const demo = fastify.demoNode.current()
      if (demo && current.rpc_url === demo.connection().rpc_url) return demo
      return sshNodeHost(current, { settings, sshTimeoutMs: config.SSH_TIMEOUT_MS })
    },
    restartWaitMs: config.RESTART_START_WAIT_MS,
    startWaitMs: config.START_WAIT_MS,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
  }
  // The lock outlives any action that is still making progress; past it, the action is presumed dead.
  const leaseMs =
    2 * (2 * config.RPC_TIMEOUT_MS + config.RESTART_START_WAIT_MS + config.START_WAIT_MS + 4 * config.SSH_TIMEOUT_MS) + 60_000

  for (const [action, { run, operationId, summary, description }] of Object.entries(ACTIONS) as [
    ActionName,
    (typeof ACTIONS)[ActionName],
  ][]) {
    fastify.post(
      `/api/actions/${action}`,
      {
        config: { auth: true },
        schema: {
          operationId,
          summary,
          description,
          tags: ['actions'],
          ...(action === 'start-reindex' ? { body: StartReindexBody } : {}),
          response: {
            200: described(ActionResult, 'Done: the action metadata and, for SSH, the remote payload.'),
            ...errorResponse(400, 401, 403, 409, ...(action === 'start-reindex' ? [422 as const] : [])),
            502: described(ActionFailure, 'The RPC or SSH step failed: the detail, the action metadata and the remote payload.'),
          },
        },
      },
      async (request) => {
        const username = sessionUser(request)
        const audit = (ok: boolean, outcome: string) =>
          fastify.audit.record({ username, kind: 'action', name: action, ok, outcome }).catch((error) => {
            request.log.warn({ err: error }, 'action audit failed')
          })
        const running = await fastify.nodeActions.begin(action, username, leaseMs)
        if (!running) {
          const other = await fastify.nodeActions.running()
          const detail = `Another node action${other ? ` (${other.action}, started ${new Date(other.started_at).toISOString()})` : ''} is still running; try again when it has finished.`
          await fastify.nodeActions.record(action, username, { ok: false, statusCode: 409, detail })
          await audit(false, detail)
          fastify.prometheus.recordAction(action, 'conflict')
          throw new HttpError(409, detail)
        }
        const started_at = running.startedAt.toISOString()
        const phases = phaseLog((list) => fastify.nodeActions.setPhases(running.id, list))
        try {
          const steps = await run(deps, phases)
          const outcome = outcomeText(action, steps)
          const finished = await fastify.nodeActions.finish(running.id, {
            ok: true,
            statusCode: 200,
            detail: outcome,
            ssh: steps.ssh,
          })
          await audit(true, outcome)
          fastify.prometheus.recordAction(action, 'ok')
          request.log.info({ action, ok: true }, 'node action done')
          return { action, started_at, finished_at: finished.toISOString(), ok: true, ...steps }
        } catch (error) {
          const status = error instanceof HttpError ? error.statusCode : 500
          const steps = error instanceof ActionError ? error.steps : {}
          const detail = error instanceof HttpError ? error.message : 'Internal error while running the action.'
          const finished = await fastify.nodeActions.finish(running.id, { ok: false, statusCode: status, detail, ssh: steps.ssh })
          await audit(false, detail)
          fastify.prometheus.recordAction(action, actionOutcome(status))
          request.log.warn({ action, status, detail }, 'node action failed')
          if (status !== 502) throw error
          // 502 answers carry the action metadata and whatever the node or the remote host said.
          throw new HttpError(502, detail, {}, { action, started_at, finished_at: finished.toISOString(), ok: false, ...steps })
        }
      },
    )
  }
}

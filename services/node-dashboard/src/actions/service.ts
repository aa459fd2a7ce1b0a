import { setTimeout as sleep } from 'node:timers/promises'
import type { Static } from '@sinclair/typebox'
import { type PhaseLog, phaseLog, waitForRpc } from '../lifecycle/phases.ts'
import type { RpcClient } from '../rpc/client.ts'
import { isRpcError } from '../rpc/errors.ts'
import { checkedReply } from '../rpc/replies.ts'
import type { NodeSettings, NodeSettingsRepository } from '../settings/repository.ts'
import { ActionError, type ActionSteps } from './errors.ts'
import type { NodeHost, SshStep } from './node-host.ts'
import type { RpcPayload } from './schemas.ts'

export { ActionError, type ActionSteps } from './errors.ts'
export type RpcStep = Static<typeof RpcPayload>
export type { SshStep } from './node-host.ts'

export interface ActionDeps {
  settings: NodeSettingsRepository
  rpc: RpcClient
  /** The host the start goes to for these settings (400 when they do not say how to reach it). */
  nodeHost: (settings: NodeSettings) => Promise<NodeHost>
  /** Restart: how long to keep retrying the start while the old node still holds its datadir lock. */
  restartWaitMs: number
  retryIntervalMs?: number
  /** Start and restart: how long to wait for the started node to answer RPC. */
  startWaitMs: number
  rpcTimeoutMs: number
  pollIntervalMs?: number
}

// bitcoind's "Cannot obtain a lock on directory %s. %s is probably already running." (init.cpp).
const LOCKED = /Cannot obtain a lock on directory/

function exitFailure(ssh: SshStep, extra = ''): ActionError {
  const said = (ssh.stderr.trim() || ssh.stdout.trim()).split('\n')[0]
  const how = ssh.exit_code === null ? 'was killed' : `exited with code ${ssh.exit_code}`
  return new ActionError(502, `The start command ${how}${said ? `: ${said}` : ''}${extra}`, { ssh })
}

/**
 * After a start command exited 0: wait for RPC (recording the phases), and on a node that did not come up,
 * fail with the tail of its debug.log.
 */
async function awaitStarted(deps: ActionDeps, host: NodeHost, phases: PhaseLog, steps: ActionSteps): Promise<ActionSteps> {
  await phases.add('starting', steps.ssh?.stdout.trim() || undefined)
  const outcome = await waitForRpc(deps.rpc, phases, {
    waitMs: deps.startWaitMs,
    intervalMs: deps.pollIntervalMs ?? 200,
    rpcTimeoutMs: deps.rpcTimeoutMs,
  })
  if (outcome.ok) return { ...steps, phases: phases.list }
  return failStart(host, phases, outcome.detail, steps)
}

/** A failed start: the `failed` phase, the debug.log tail when the host has one, and a 502. */
async function failStart(host: NodeHost, phases: PhaseLog, detail: string, steps: ActionSteps): Promise<never> {
  await phases.add('failed', detail)
  const debugLog = (await host.readDebugLog?.()) ?? null
  const hint = debugLog?.reindex_suggested ? ' The debug.log asks for a start with -reindex.' : ''
  throw new ActionError(502, `${detail}${hint}`, {
    ...steps,
    phases: phases.list,
    ...(debugLog ? { debug_log: debugLog } : {}),
  })
}

export async function stopAction(deps: ActionDeps): Promise<ActionSteps> {
  const result = await deps.rpc
    .call<unknown>('stop', [], { wallet: '' })
    .then((reply) => checkedReply('stop', reply))
    .catch((error) => {
      if (isRpcError(error)) {
        const rpc: RpcStep = {
          method: 'stop',
          ok: false,
          result: null,
          node_was_running: error.kind !== 'unreachable',
          detail: error.message,
        }
        throw new ActionError(error.statusCode, error.message, error.statusCode === 400 ? {} : { rpc })
      }
      throw error
    })
  return { rpc: { method: 'stop', ok: true, result, node_was_running: true } }
}

export async function startAction(
  deps: ActionDeps,
  phases = phaseLog(),
  options: { reindex?: boolean } = {},
): Promise<ActionSteps> {
  const host = await deps.nodeHost(await deps.settings.get())
  const ssh = await host.start(undefined, options)
  if (ssh.exit_code !== 0) return failStart(host, phases, exitFailure(ssh).message, { ssh })
  return awaitStarted(deps, host, phases, { ssh })
}

/** The start with -reindex (rebuilds the block index and chainstate from the block files). */
export const startReindexAction = (deps: ActionDeps, phases = phaseLog()) => startAction(deps, phases, { reindex: true })

/** RPC stop (a node already down is fine), then the start, retried while the old process holds its lock. */
export async function restartAction(deps: ActionDeps, phases = phaseLog()): Promise<ActionSteps> {
  const settings = await deps.settings.get()
  // Nothing is stopped unless the node can be started again.
  const host = await deps.nodeHost(settings)
  if (!settings.rpc_url) throw new ActionError(400, 'Missing node settings needed to stop the node: rpc_url.')
  let rpc: RpcStep
  try {
    const result = checkedReply('stop', await deps.rpc.call<unknown>('stop', [], { wallet: '', settings }))
    rpc = { method: 'stop', ok: true, result, node_was_running: true }
    await phases.add('stopping', result ?? undefined)
  } catch (error) {
    if (!isRpcError(error)) throw error
    if (error.kind !== 'unreachable') {
      const step: RpcStep = { method: 'stop', ok: false, result: null, node_was_running: true, detail: error.message }
      throw new ActionError(502, `Restart aborted, the node was not stopped: ${error.message}`, { rpc: step })
    }
    rpc = { method: 'stop', ok: true, result: null, node_was_running: false, detail: `already down: ${error.message}` }
    await phases.add('stopped', 'already down')
  }
  const deadline = Date.now() + deps.restartWaitMs
  const interval = deps.retryIntervalMs ?? 500
  for (let attempts = 1; ; attempts++) {
    let ssh: SshStep
    try {
      ssh = await host.start(attempts)
    } catch (error) {
      if (error instanceof ActionError) {
        await phases.add('failed', error.message)
        throw new ActionError(error.statusCode, error.message, { rpc, ...error.steps, phases: phases.list })
      }
      throw error
    }
    const locked = LOCKED.test(ssh.stderr) || LOCKED.test(ssh.stdout)
    // The start went through or failed for another reason than the lock: the old process is gone.
    if (phases.last()?.phase === 'stopping' && (ssh.exit_code === 0 || !locked)) await phases.add('stopped')
    if (ssh.exit_code === 0) return awaitStarted(deps, host, phases, { rpc, ssh })
    if (!locked) return failStart(host, phases, exitFailure(ssh).message, { rpc, ssh })
    if (Date.now() + interval > deadline) {
      const extra = ` (the old node still held its data directory after ${attempts} attempts in ${deps.restartWaitMs} ms)`
      await phases.add('failed', exitFailure(ssh, extra).message)
      throw new ActionError(502, exitFailure(ssh, extra).message, { rpc, ssh, phases: phases.list })
    }
    await sleep(interval)
  }
}

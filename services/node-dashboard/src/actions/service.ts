import { setTimeout as sleep } from 'node:timers/promises'
import type { Static } from '@sinclair/typebox'
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
}

// bitcoind's "Cannot obtain a lock on directory %s. %s is probably already running." (init.cpp).
const LOCKED = /Cannot obtain a lock on directory/

function exitFailure(ssh: SshStep, extra = ''): ActionError {
  const said = (ssh.stderr.trim() || ssh.stdout.trim()).split('\n')[0]
  const how = ssh.exit_code === null ? 'was killed' : `exited with code ${ssh.exit_code}`
  return new ActionError(502, `The start command ${how}${said ? `: ${said}` : ''}${extra}`, { ssh })
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

export async function startAction(deps: ActionDeps): Promise<ActionSteps> {
  const host = await deps.nodeHost(await deps.settings.get())
  const ssh = await host.start()
  if (ssh.exit_code !== 0) throw exitFailure(ssh)
  return { ssh }
}

/** RPC stop (a node already down is fine), then the start, retried while the old process holds its lock. */
export async function restartAction(deps: ActionDeps): Promise<ActionSteps> {
  const settings = await deps.settings.get()
  // Nothing is stopped unless the node can be started again.
  const host = await deps.nodeHost(settings)
  if (!settings.rpc_url) throw new ActionError(400, 'Missing node settings needed to stop the node: rpc_url.')
  let rpc: RpcStep
  try {
    const result = checkedReply('stop', await deps.rpc.call<unknown>('stop', [], { wallet: '', settings }))
    rpc = { method: 'stop', ok: true, result, node_was_running: true }
  } catch (error) {
    if (!isRpcError(error)) throw error
    if (error.kind !== 'unreachable') {
      const step: RpcStep = { method: 'stop', ok: false, result: null, node_was_running: true, detail: error.message }
      throw new ActionError(502, `Restart aborted, the node was not stopped: ${error.message}`, { rpc: step })
    }
    rpc = { method: 'stop', ok: true, result: null, node_was_running: false, detail: `already down: ${error.message}` }
  }
  const deadline = Date.now() + deps.restartWaitMs
  const interval = deps.retryIntervalMs ?? 500
  for (let attempts = 1; ; attempts++) {
    let ssh: SshStep
    try {
      ssh = await host.start(attempts)
    } catch (error) {
      if (error instanceof ActionError) throw new ActionError(error.statusCode, error.message, { rpc, ...error.steps })
      throw error
    }
    if (ssh.exit_code === 0) return { rpc, ssh }
    const locked = LOCKED.test(ssh.stderr) || LOCKED.test(ssh.stdout)
    if (!locked) throw new ActionError(502, exitFailure(ssh).message, { rpc, ssh })
    if (Date.now() + interval > deadline) {
      const extra = ` (the old node still held its data directory after ${attempts} attempts in ${deps.restartWaitMs} ms)`
      throw new ActionError(502, exitFailure(ssh, extra).message, { rpc, ssh })
    }
    await sleep(interval)
  }
}

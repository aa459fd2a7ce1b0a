import { setTimeout as sleep } from 'node:timers/promises'
import { HttpError } from '@app/common'
import type { Static } from '@sinclair/typebox'
import type { RpcClient } from '../rpc/client.ts'
import { isRpcError } from '../rpc/errors.ts'
import { checkedReply } from '../rpc/replies.ts'
import { missingSettings, type NodeSettings, type NodeSettingsRepository } from '../settings/repository.ts'
import { keyProblem, runSshCommand, SshError, type SshResult, type SshTarget } from '../ssh/client.ts'
import { startCommand } from '../ssh/command.ts'
import { readKeyFile } from '../ssh/key-file.ts'
import type { RpcPayload, SshPayload } from './schemas.ts'

export type RpcStep = Static<typeof RpcPayload>
export type SshStep = Static<typeof SshPayload>

export interface ActionSteps {
  rpc?: RpcStep
  ssh?: SshStep
}

/** A failed action: the status (400/502), a detail for the client, and the steps that did run. */
export class ActionError extends HttpError {
  constructor(
    statusCode: number,
    message: string,
    readonly steps: ActionSteps = {},
  ) {
    super(statusCode, message)
    this.name = 'ActionError'
  }
}

export interface ActionDeps {
  settings: NodeSettingsRepository
  rpc: RpcClient
  sshTimeoutMs: number
  /** Restart: how long to keep retrying the start while the old node still holds its datadir lock. */
  restartWaitMs: number
  retryIntervalMs?: number
}

// bitcoind's "Cannot obtain a lock on directory %s. %s is probably already running." (init.cpp).
const LOCKED = /Cannot obtain a lock on directory/

interface StartPlan {
  target: SshTarget
  command: string
  expectedFingerprint: string
}

/** Checks the start settings (400 naming every missing one) and loads the key, before any work. */
async function planStart(settings: NodeSettings): Promise<StartPlan> {
  const missing: string[] = missingSettings(settings, ['ssh_host', 'ssh_username'])
  if (!settings.ssh_password && !settings.ssh_key_path) missing.push('ssh_password or ssh_key_path')
  if (!settings.config_path) missing.push('config_path')
  if (missing.length > 0) {
    throw new ActionError(400, `Missing node settings needed to start the node over SSH: ${missing.join(', ')}.`)
  }
  if (settings.config_path.includes('\0') || settings.node_binary.includes('\0')) {
    throw new ActionError(400, 'config_path and node_binary cannot contain NUL characters.')
  }
  const target: SshTarget = {
    host: settings.ssh_host,
    port: settings.ssh_port || 22,
    username: settings.ssh_username,
    password: settings.ssh_password || undefined,
  }
  if (settings.ssh_key_path) {
    let key: string
    try {
      key = await readKeyFile(settings.ssh_key_path)
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      throw new ActionError(400, `ssh_key_path: cannot read the private key file (${reason}).`)
    }
    const problem = keyProblem(key)
    if (problem !== null) {
      // An encrypted key takes ssh_password as its passphrase.
      const withPassphrase = settings.ssh_password ? keyProblem(key, settings.ssh_password) : problem
      if (withPassphrase !== null) {
        throw new ActionError(400, `ssh_key_path: the file is not a usable private key (${withPassphrase}).`)
      }
      target.passphrase = settings.ssh_password
      // A passphrase is never sent to the server as a login password.
      target.password = undefined
    }
    target.privateKey = key
  }
  return {
    target,
    command: startCommand({ nodeBinary: settings.node_binary || 'bitcoind', configPath: settings.config_path }),
    expectedFingerprint: settings.ssh_host_key_fingerprint,
  }
}

const payload = (result: SshResult, attempts?: number): SshStep => ({
  command: result.command,
  exit_code: result.exit_code,
  stdout: result.stdout,
  stderr: result.stderr,
  duration_ms: result.duration_ms,
  ...(attempts === undefined ? {} : { attempts }),
})

/** One SSH run of the start command; records the host key on the first successful connection (TOFU). */
async function sshStart(deps: ActionDeps, plan: StartPlan, attempts?: number): Promise<SshStep> {
  const where = `${plan.target.host}:${plan.target.port}`
  try {
    const result = await runSshCommand({
      ...plan.target,
      command: plan.command,
      timeoutMs: deps.sshTimeoutMs,
      expectedFingerprint: plan.expectedFingerprint || null,
    })
    if (!plan.expectedFingerprint) {
      await deps.settings.recordHostKey(result.fingerprint)
      plan.expectedFingerprint = result.fingerprint
    }
    return payload(result, attempts)
  } catch (error) {
    if (!(error instanceof SshError)) throw error
    const ssh = error.result ? payload(error.result, attempts) : undefined
    const hint =
      error.kind === 'host-key'
        ? ' If the node host really has a new key, clear ssh_host_key_fingerprint in the settings to trust it.'
        : ''
    throw new ActionError(502, `SSH to ${where} failed: ${error.message}.${hint}`, { ssh })
  }
}

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
  const plan = await planStart(await deps.settings.get())
  const ssh = await sshStart(deps, plan)
  if (ssh.exit_code !== 0) throw exitFailure(ssh)
  return { ssh }
}

/** RPC stop (a node already down is fine), then the start, retried while the old process holds its lock. */
export async function restartAction(deps: ActionDeps): Promise<ActionSteps> {
  const settings = await deps.settings.get()
  // Nothing is stopped unless the node can be started again.
  const plan = await planStart(settings)
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
      ssh = await sshStart(deps, plan, attempts)
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

import type { Static } from '@sinclair/typebox'
import {
  DEBUG_LOG_MAX_BYTES,
  type DebugLog,
  debugLogLocation,
  debugLogPath,
  parseDebugLogTail,
  tailDebugLogCommand,
} from '../lifecycle/debug-log.ts'
import { readConfCommand } from '../node-config/remote.ts'
import type { NodeSettings, NodeSettingsRepository } from '../settings/repository.ts'
import { runSshCommand, SshError, type SshResult, type SshTarget } from '../ssh/client.ts'
import { startCommand } from '../ssh/command.ts'
import { missingSshSettings, SshSettingsError, sshTargetOf } from '../ssh/target.ts'
import { ActionError } from './errors.ts'
import type { SshPayload } from './schemas.ts'

export type SshStep = Static<typeof SshPayload>

/** Where the node runs and how it is started: over SSH, or the demo node in this process. */
export interface NodeHost {
  /** One start; a non-zero exit is a result (restart retries a held datadir lock), a failure to reach the host throws. */
  start(attempts?: number, options?: { reindex?: boolean }): Promise<SshStep>
  /** The tail of the node's debug.log, or null when the host has none or it cannot be read. */
  readDebugLog?(): Promise<DebugLog | null>
}

interface StartPlan {
  target: SshTarget
  nodeBinary: string
  configPath: string
  expectedFingerprint: string
}

/** Checks the start settings (400 naming every missing one) and loads the key, before any work. */
async function planStart(settings: NodeSettings): Promise<StartPlan> {
  const missing = missingSshSettings(settings)
  if (!settings.config_path) missing.push('config_path')
  if (missing.length > 0) {
    throw new ActionError(400, `Missing node settings needed to start the node over SSH: ${missing.join(', ')}.`)
  }
  if (settings.config_path.includes('\0') || settings.node_binary.includes('\0')) {
    throw new ActionError(400, 'config_path and node_binary cannot contain NUL characters.')
  }
  let target: SshTarget
  try {
    target = await sshTargetOf(settings)
  } catch (error) {
    if (error instanceof SshSettingsError) throw new ActionError(400, error.message)
    throw error
  }
  return {
    target,
    nodeBinary: settings.node_binary || 'bitcoind',
    configPath: settings.config_path,
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

/**
 * The node host reached over SSH, from the settings (400 before any work when some are missing). Each
 * start runs the start command once; the first successful connection records the host key (TOFU).
 */
export async function sshNodeHost(
  settings: NodeSettings,
  deps: { settings: Pick<NodeSettingsRepository, 'recordHostKey'>; sshTimeoutMs: number },
): Promise<NodeHost> {
  const plan = await planStart(settings)
  const where = `${plan.target.host}:${plan.target.port}`
  const run = async (command: string, maxOutputBytes?: number) => {
    const result = await runSshCommand({
      ...plan.target,
      command,
      timeoutMs: deps.sshTimeoutMs,
      expectedFingerprint: plan.expectedFingerprint || null,
      maxOutputBytes,
    })
    if (!plan.expectedFingerprint) {
      await deps.settings.recordHostKey(result.fingerprint)
      plan.expectedFingerprint = result.fingerprint
    }
    return result
  }
  return {
    async readDebugLog() {
      // Best effort after a failure: a log that cannot be read leaves the failure's own detail as it is.
      try {
        const conf = await run(readConfCommand(plan.configPath), 256 * 1024 + 128)
        if (conf.exit_code !== 0) return null
        const location = debugLogLocation(conf.stdout.slice(65))
        if (location === null) return null
        const tail = await run(tailDebugLogCommand(location), DEBUG_LOG_MAX_BYTES + 64)
        return tail.exit_code === 0 ? parseDebugLogTail(debugLogPath(location), tail.stdout) : null
      } catch (error) {
        if (error instanceof SshError) return null
        throw error
      }
    },
    async start(attempts, options = {}) {
      try {
        const command = startCommand({ nodeBinary: plan.nodeBinary, configPath: plan.configPath, reindex: options.reindex })
        return payload(await run(command), attempts)
      } catch (error) {
        if (!(error instanceof SshError)) throw error
        const ssh = error.result ? payload(error.result, attempts) : undefined
        const hint =
          error.kind === 'host-key'
            ? ' If the node host really has a new key, clear ssh_host_key_fingerprint in the settings to trust it.'
            : ''
        throw new ActionError(502, `SSH to ${where} failed: ${error.message}.${hint}`, { ssh })
      }
    },
  }
}

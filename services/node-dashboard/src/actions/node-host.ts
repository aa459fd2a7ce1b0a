import type { Static } from '@sinclair/typebox'
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
  start(attempts?: number): Promise<SshStep>
}

interface StartPlan {
  target: SshTarget
  command: string
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
  return {
    async start(attempts) {
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
    },
  }
}

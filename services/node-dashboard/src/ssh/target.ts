import { missingSettings, type NodeSettings } from '../settings/repository.ts'
import { keyProblem, type SshTarget } from './client.ts'
import { readKeyFile } from './key-file.ts'

/** The SSH settings are incomplete or name an unusable key; the message says which, for a 400. */
export class SshSettingsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SshSettingsError'
  }
}

/** The SSH settings still missing for any login to the node host ([] when an account is set). */
export function missingSshSettings(settings: NodeSettings): string[] {
  const missing: string[] = missingSettings(settings, ['ssh_host', 'ssh_username'])
  if (!settings.ssh_password && !settings.ssh_key_path) missing.push('ssh_password or ssh_key_path')
  return missing
}

/** The node host's SSH account from the settings, its key file loaded and checked before any connection. */
export async function sshTargetOf(settings: NodeSettings): Promise<SshTarget> {
  const target: SshTarget = {
    host: settings.ssh_host,
    port: settings.ssh_port || 22,
    username: settings.ssh_username,
    password: settings.ssh_password || undefined,
  }
  if (!settings.ssh_key_path) return target
  let key: string
  try {
    key = await readKeyFile(settings.ssh_key_path)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new SshSettingsError(`ssh_key_path: cannot read the private key file (${reason}).`)
  }
  const problem = keyProblem(key)
  if (problem !== null) {
    // An encrypted key takes ssh_password as its passphrase.
    const withPassphrase = settings.ssh_password ? keyProblem(key, settings.ssh_password) : problem
    if (withPassphrase !== null) {
      throw new SshSettingsError(`ssh_key_path: the file is not a usable private key (${withPassphrase}).`)
    }
    target.passphrase = settings.ssh_password
    // A passphrase is never sent to the server as a login password.
    target.password = undefined
  }
  target.privateKey = key
  return target
}

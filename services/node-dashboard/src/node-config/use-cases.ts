/**
 * Viewing and saving the node's config file (settings' config_path) on the node host over SSH. The save
 * owns its audit: a node_config_saves row with the masked diff and an audit_log row, in one transaction.
 */
import { createHash } from 'node:crypto'
import { type Database, HttpError } from '@app/common'
import { createTwoFilesPatch } from 'diff'
import { createAuditRepository } from '../audit/repository.ts'
import type { NodeSettings } from '../settings/repository.ts'
import { runSshCommand, SshError, type SshRunResult } from '../ssh/client.ts'
import { missingSshSettings, SshSettingsError, sshTargetOf } from '../ssh/target.ts'
import { ConfError, commonOptions, maskSecrets, parseConf, restoreSecrets, validateConf } from './conf-text.ts'
import { backupStamp, EXIT, MAX_CONF_BYTES, readConfCommand, writeConfCommand } from './remote.ts'
import { createNodeConfigSavesRepository } from './repository.ts'

export interface NodeConfigDeps {
  db: Database
  settings: { get(): Promise<NodeSettings>; recordHostKey(fingerprint: string): Promise<unknown> }
  sshTimeoutMs: number
}

export interface NodeConfigView {
  path: string
  sha256: string
  size: number
  /** The file with rpcpassword and rpcauth values masked. */
  text: string
  masked_secrets: number
  /** The common options of the top section (last value wins). */
  options: Record<string, string>
  /** Why the file does not parse or holds a value bitcoind refuses (null when it is fine). */
  problem: string | null
}

export interface NodeConfigSaved extends NodeConfigView {
  saved: boolean
  backup_path: string | null
  /** Unified diff of the masked texts ('' when nothing changed). */
  diff: string
  restart_needed: boolean
}

interface Remote {
  settings: NodeSettings
  run(command: string, input?: Buffer): Promise<SshRunResult>
}

/** The SSH account and config_path, checked before any connection (400 naming what is missing). */
async function remoteFor(deps: NodeConfigDeps): Promise<Remote> {
  const settings = await deps.settings.get()
  const missing = missingSshSettings(settings)
  if (!settings.config_path) missing.push('config_path')
  if (missing.length > 0)
    throw new HttpError(400, `Missing node settings needed to reach the config file: ${missing.join(', ')}.`)
  let target: Awaited<ReturnType<typeof sshTargetOf>>
  try {
    target = await sshTargetOf(settings)
  } catch (error) {
    if (error instanceof SshSettingsError) throw new HttpError(400, error.message)
    throw error
  }
  let expected = settings.ssh_host_key_fingerprint
  return {
    settings,
    async run(command, input) {
      try {
        const result = await runSshCommand({
          ...target,
          command,
          input,
          timeoutMs: deps.sshTimeoutMs,
          expectedFingerprint: expected || null,
          maxOutputBytes: MAX_CONF_BYTES + 128,
        })
        if (!expected) {
          await deps.settings.recordHostKey(result.fingerprint)
          expected = result.fingerprint
        }
        return result
      } catch (error) {
        if (!(error instanceof SshError)) throw error
        throw new HttpError(502, `SSH to ${target.host}:${target.port} failed: ${error.message}.`)
      }
    },
  }
}

function refusal(result: SshRunResult, path: string): HttpError {
  if (result.exit_code === EXIT.missing)
    return new HttpError(404, `The node config file ${path} does not exist on the node host.`)
  if (result.exit_code === EXIT.notRegular) return new HttpError(422, `The node config file ${path} is not a regular file.`)
  if (result.exit_code === EXIT.tooLarge) {
    return new HttpError(422, `The node config file ${path} is larger than ${MAX_CONF_BYTES} bytes; edit it on the node host.`)
  }
  const said = (result.stderr.trim() || result.stdout.trim()).split('\n')[0]
  return new HttpError(502, `Reading or writing ${path} over SSH exited with code ${result.exit_code}${said ? `: ${said}` : ''}.`)
}

async function readRemote(remote: Remote): Promise<{ text: string; sha256: string }> {
  const path = remote.settings.config_path
  const result = await remote.run(readConfCommand(path))
  if (result.exit_code !== 0) throw refusal(result, path)
  const sha256 = result.stdout.slice(0, 64)
  if (!/^[0-9a-f]{64}$/.test(sha256) || result.stdout[64] !== '\n') {
    throw new HttpError(502, `Reading ${path} over SSH gave an unexpected answer (is sha256sum installed on the node host?).`)
  }
  const text = result.stdout.slice(65)
  if (text.includes('\uFFFD') || text.includes('\0')) throw new HttpError(422, `The node config file ${path} is not UTF-8 text.`)
  return { text, sha256 }
}

function viewOf(path: string, text: string, sha256: string): NodeConfigView {
  const { text: masked, secretCount } = maskSecrets(text)
  let problem: string | null = null
  let options: Record<string, string> = {}
  try {
    const lines = parseConf(text)
    options = commonOptions(lines)
    validateConf(lines)
  } catch (error) {
    if (!(error instanceof ConfError)) throw error
    problem = error.message
  }
  return { path, sha256, size: Buffer.byteLength(text), text: masked, masked_secrets: secretCount, options, problem }
}

export async function readNodeConfig(deps: NodeConfigDeps): Promise<NodeConfigView> {
  const remote = await remoteFor(deps)
  const { text, sha256 } = await readRemote(remote)
  return viewOf(remote.settings.config_path, text, sha256)
}

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** A unified diff of the masked texts; bounded work (a huge rewrite is summarised instead). */
function maskedDiff(path: string, before: string, after: string): string {
  const a = maskSecrets(before).text
  const b = maskSecrets(after).text
  if (a === b) return before === after ? '' : '(only secret values changed)'
  const patch = createTwoFilesPatch(path, path, a, b, 'before', 'after', { context: 2, maxEditLength: 5000 })
  return patch ?? `(too many changes to list: ${a.split('\n').length} lines before, ${b.split('\n').length} after)`
}

/**
 * Saves `edited` (secrets still masked are kept) if the file still has `baseSha256`, after checking it
 * like bitcoind would: 409 when it changed on the host meanwhile, 422 naming the line of a bad value.
 */
export async function saveNodeConfig(
  deps: NodeConfigDeps,
  edited: string,
  baseSha256: string,
  username: string | null,
): Promise<NodeConfigSaved> {
  const remote = await remoteFor(deps)
  const path = remote.settings.config_path
  const audit = createAuditRepository(deps.db)
  const current = await readRemote(remote)
  if (current.sha256 !== baseSha256) {
    throw new HttpError(409, `${path} changed on the node host since it was loaded: reload it and make the change again.`)
  }
  let text: string
  try {
    text = restoreSecrets(edited.replace(/\r\n/g, '\n'), current.text)
    validateConf(parseConf(text))
  } catch (error) {
    if (error instanceof ConfError) throw new HttpError(422, `Invalid config: ${error.message}`)
    throw error
  }
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length > MAX_CONF_BYTES) throw new HttpError(422, `The config would be larger than ${MAX_CONF_BYTES} bytes.`)
  if (text === current.text) {
    return { ...viewOf(path, text, current.sha256), saved: false, backup_path: null, diff: '', restart_needed: false }
  }
  const result = await remote.run(writeConfCommand(path, current.sha256, bytes.length, backupStamp()), bytes)
  if (result.exit_code !== 0) {
    const error =
      result.exit_code === EXIT.changed
        ? new HttpError(409, `${path} changed on the node host while saving: reload it and make the change again.`)
        : refusal(result, path)
    await audit.record({ username, kind: 'action', name: 'config-save', ok: false, outcome: error.message })
    throw error
  }
  const backup = result.stdout.trim().split('\n').at(-1) ?? ''
  const diff = maskedDiff(path, current.text, text)
  await deps.db.transaction(async (tx) => {
    await createNodeConfigSavesRepository(tx).record({ username, path, backup_path: backup, diff })
    await createAuditRepository(tx).record({
      username,
      kind: 'action',
      name: 'config-save',
      ok: true,
      outcome: `saved ${path} (backup ${backup})`,
    })
  })
  return { ...viewOf(path, text, sha256Of(bytes)), saved: true, backup_path: backup, diff, restart_needed: true }
}

/**
 * bitcoind's cookie authentication: the node writes `__cookie__:<hex>` to `<datadir>/[<chain>/].cookie`
 * at every start. The dashboard reads the file named by rpc_cookie_path on its own host when it is
 * there (same host, or the datadir mounted read-only), otherwise over the configured SSH account. The
 * cookie lives only in memory: never stored, logged or returned.
 */
import { FileRefusedError, readRegularFile } from '../settings/local-file.ts'
import type { NodeSettings } from '../settings/repository.ts'
import { runSshCommand, SshError } from '../ssh/client.ts'
import { shellQuote } from '../ssh/command.ts'
import { missingSshSettings, SshSettingsError, sshTargetOf } from '../ssh/target.ts'
import { RpcError } from './errors.ts'

export interface RpcCookie {
  user: string
  password: string
  /** Where it was read: the dashboard's own file system or the node host over SSH. */
  source: 'local' | 'ssh'
}

export interface CookieReaderOptions {
  sshTimeoutMs: number
  /** Records the node host's key on the first SSH connection when none is pinned (as the start action does). */
  recordHostKey?: (fingerprint: string) => Promise<unknown>
  /** Reads a file on the dashboard's own host; tests stand in for a host that does not have the node's datadir. */
  readLocal?: (path: string, maxBytes: number) => Promise<Buffer>
}

/** A cookie is 75 bytes; anything much larger is not one. */
const MAX_COOKIE_BYTES = 1024
// Core writes 32 random bytes as hex after the fixed user. Only a file of this shape is ever sent to
// rpc_url, so the setting cannot be pointed at another secret file on either host to send it away.
const COOKIE = /^__cookie__:([0-9a-fA-F]{32,256})\r?\n?$/

const failure = (path: string, why: string) => new RpcError('auth', `Cannot read the node's RPC cookie file ${path}: ${why}.`)

function parse(text: string, path: string, source: RpcCookie['source']): RpcCookie {
  const match = COOKIE.exec(text)
  if (!match) throw failure(path, 'it is not a bitcoind cookie ("__cookie__:" and hex)')
  return { user: '__cookie__', password: match[1], source }
}

/** `head` stops at the cap; exit 2 and 3 tell a missing file from one that is not a regular file. */
function remoteReadCommand(path: string): string {
  const p = shellQuote(path)
  return `if [ -f ${p} ]; then head -c ${MAX_COOKIE_BYTES + 1} -- ${p}; elif [ -e ${p} ]; then exit 3; else exit 2; fi`
}

export function createCookieReader({ sshTimeoutMs, recordHostKey, readLocal = readRegularFile }: CookieReaderOptions) {
  async function overSsh(settings: NodeSettings, path: string): Promise<RpcCookie> {
    const where = `${settings.ssh_host}:${settings.ssh_port || 22}`
    let result: Awaited<ReturnType<typeof runSshCommand>>
    try {
      result = await runSshCommand({
        ...(await sshTargetOf(settings)),
        command: remoteReadCommand(path),
        timeoutMs: sshTimeoutMs,
        expectedFingerprint: settings.ssh_host_key_fingerprint || null,
        maxOutputBytes: MAX_COOKIE_BYTES + 1,
      })
    } catch (error) {
      if (error instanceof SshSettingsError) throw failure(path, error.message)
      if (error instanceof SshError) throw failure(path, `SSH to ${where} failed: ${error.message}`)
      throw error
    }
    if (!settings.ssh_host_key_fingerprint) await recordHostKey?.(result.fingerprint)
    if (result.exit_code === 2) throw failure(path, `no such file on the node host ${where}`)
    if (result.exit_code === 3) throw failure(path, `not a regular file on the node host ${where}`)
    if (result.exit_code !== 0) throw failure(path, `reading it over SSH exited with code ${result.exit_code}`)
    if (result.stdout.length > MAX_COOKIE_BYTES) throw failure(path, `larger than ${MAX_COOKIE_BYTES} bytes`)
    return parse(result.stdout, path, 'ssh')
  }

  return async function readCookie(settings: NodeSettings): Promise<RpcCookie> {
    const path = settings.rpc_cookie_path
    let bytes: Buffer
    try {
      bytes = await readLocal(path, MAX_COOKIE_BYTES)
    } catch (error) {
      if (error instanceof FileRefusedError) throw failure(path, error.message)
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw failure(path, code ?? (error as Error).message)
      // Not on this host: the node host has it, when the dashboard can log in there.
      const missing = missingSshSettings(settings)
      if (missing.length > 0) {
        throw failure(path, `no such file on this host, and SSH to the node host is not set up (${missing.join(', ')})`)
      }
      return overSsh(settings, path)
    }
    return parse(bytes.toString('utf8'), path, 'local')
  }
}

export type CookieReader = ReturnType<typeof createCookieReader>

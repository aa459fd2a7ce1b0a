/**
 * "Test connection": one RPC round (getnetworkinfo + getblockchaininfo) or one SSH login running
 * `<node_binary> -version`, with the settings as the form holds them (not saved). Stored secrets join
 * only under the rule that binds them to their target, so a test cannot send one somewhere new.
 */
import type { RpcClient } from '../rpc/client.ts'
import { isRpcError } from '../rpc/errors.ts'
import { runSshCommand, SshError } from '../ssh/client.ts'
import { shellQuote } from '../ssh/command.ts'
import { missingSshSettings, SshSettingsError, sshTargetOf } from '../ssh/target.ts'
import type { NodeSettings } from './repository.ts'

export interface RpcCheck {
  ok: boolean
  failure: string | null
  detail: string
  authentication: 'password' | 'cookie' | 'none'
  node: { version: number; subversion: string; chain: string; blocks: number } | null
  duration_ms: number
}

export interface SshCheck {
  ok: boolean
  failure: string | null
  detail: string
  host_key_fingerprint: string | null
  host_key_pinned: boolean
  node_version: string | null
  duration_ms: number
}

const since = (started: number) => Math.round(performance.now() - started)
const firstLine = (text: string) => text.trim().split('\n')[0] ?? ''

/** 'refused' is split out of 'unreachable': it says the host is up but nothing listens on the port. */
const refusedOr = (kind: string, message: string) =>
  kind === 'unreachable' && /refused|ECONNREFUSED/.test(message) ? 'refused' : kind

export async function checkRpc(rpc: RpcClient, settings: NodeSettings): Promise<RpcCheck> {
  const started = performance.now()
  const authentication = settings.rpc_password
    ? 'password'
    : settings.rpc_cookie_path
      ? 'cookie'
      : settings.rpc_username
        ? 'password'
        : 'none'
  const answer = (failure: string | null, detail: string, node: RpcCheck['node'] = null): RpcCheck => ({
    ok: failure === null,
    failure,
    detail,
    authentication,
    node,
    duration_ms: since(started),
  })
  try {
    const [network, chain] = await rpc.batch([{ method: 'getnetworkinfo' }, { method: 'getblockchaininfo' }], {
      wallet: '',
      settings,
    })
    for (const item of [network, chain]) if (!item.ok) throw item.error
    const n = (network.ok ? network.result : {}) as { version?: unknown; subversion?: unknown }
    const c = (chain.ok ? chain.result : {}) as { chain?: unknown; blocks?: unknown }
    const node = {
      version: typeof n.version === 'number' ? n.version : 0,
      subversion: typeof n.subversion === 'string' ? n.subversion : '',
      chain: typeof c.chain === 'string' ? c.chain : '',
      blocks: typeof c.blocks === 'number' ? c.blocks : 0,
    }
    return answer(
      null,
      `Connected: ${node.subversion || `version ${node.version}`} on ${node.chain}, ${node.blocks} blocks.`,
      node,
    )
  } catch (error) {
    if (!isRpcError(error)) throw error
    return answer(refusedOr(error.kind, error.message), error.message)
  }
}

export async function checkSsh(settings: NodeSettings, timeoutMs: number): Promise<SshCheck> {
  const started = performance.now()
  const pinned = settings.ssh_host_key_fingerprint
  const answer = (failure: string | null, detail: string, fingerprint: string | null = null, version: string | null = null) => ({
    ok: failure === null,
    failure,
    detail,
    host_key_fingerprint: fingerprint,
    host_key_pinned: Boolean(pinned) && fingerprint === pinned,
    node_version: version,
    duration_ms: since(started),
  })
  const missing = missingSshSettings(settings)
  if (missing.length > 0) return answer('not-configured', `Missing SSH settings: ${missing.join(', ')}.`)
  const binary = settings.node_binary || 'bitcoind'
  try {
    const result = await runSshCommand({
      ...(await sshTargetOf(settings)),
      command: `${shellQuote(binary)} -version`,
      timeoutMs,
      expectedFingerprint: pinned || null,
      maxOutputBytes: 4096,
    })
    if (result.exit_code !== 0) {
      const said = firstLine(result.stderr) || firstLine(result.stdout)
      const detail = `SSH login works, but \`${binary} -version\` exited with code ${result.exit_code}${said ? `: ${said}` : ''}.`
      return answer('node-binary', detail, result.fingerprint)
    }
    const version = firstLine(result.stdout)
    const trust = pinned ? 'pinned' : 'not pinned yet: it is trusted and recorded at the first start'
    return answer(null, `Connected: ${version} (host key ${result.fingerprint}, ${trust}).`, result.fingerprint, version)
  } catch (error) {
    if (error instanceof SshSettingsError) return answer('settings', error.message)
    if (!(error instanceof SshError)) throw error
    return answer(refusedOr(error.kind, error.message), error.message, error.fingerprint)
  }
}

/**
 * One look at the node over RPC (getblockchaininfo), classified for the lifecycle: answering, warming up
 * (error -28, whose message is bitcoind's init status, e.g. "Loading block index…"), refusing connections,
 * too slow, or answering with something else (wrong credentials, a full work queue).
 */
import type { RpcClient } from '../rpc/client.ts'
import { isRpcError } from '../rpc/errors.ts'

export type Probe =
  | { kind: 'running'; blocks: number | null; verification_progress: number | null; initial_block_download: boolean | null }
  | { kind: 'warming_up'; message: string }
  | { kind: 'refused' | 'timeout' | 'other'; message: string }
  | { kind: 'not-configured' }

const numberOr = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null)

export async function probeNode(rpc: RpcClient, timeoutMs: number): Promise<Probe> {
  try {
    const info = (await rpc.call<Record<string, unknown>>('getblockchaininfo', [], { wallet: '', timeoutMs })) ?? {}
    return {
      kind: 'running',
      blocks: numberOr(info.blocks),
      verification_progress: numberOr(info.verificationprogress),
      initial_block_download: typeof info.initialblockdownload === 'boolean' ? info.initialblockdownload : null,
    }
  } catch (error) {
    if (!isRpcError(error)) throw error
    if (error.kind === 'not-configured') return { kind: 'not-configured' }
    if (error.kind === 'warmup') return { kind: 'warming_up', message: error.rpcMessage ?? error.message }
    if (error.kind === 'unreachable') return { kind: 'refused', message: error.message }
    if (error.kind === 'timeout') return { kind: 'timeout', message: error.message }
    return { kind: 'other', message: error.message }
  }
}

/** "verification progress 99.98%" for a running node's phase message. */
export function progressText(probe: Extract<Probe, { kind: 'running' }>): string {
  const parts = [
    probe.blocks === null ? null : `${probe.blocks} blocks`,
    probe.verification_progress === null ? null : `verification progress ${(probe.verification_progress * 100).toFixed(2)}%`,
    probe.initial_block_download ? 'initial block download' : null,
  ]
  return parts.filter(Boolean).join(', ') || 'answering RPC'
}

/**
 * The node's lifecycle state from one RPC probe and the action records: running, warming_up (bitcoind's
 * init status as message), stopping, stopped, unreachable or unknown. bitcoind closes its RPC port within
 * milliseconds of accepting `stop` and then flushes until it exits (1.5 s on regtest, minutes on a busy
 * mainnet node), so after an accepted stop a closed port reads as stopping for STOP_FLUSH_MS, then stopped;
 * after a start the dashboard saw fail, it reads as stopped.
 */
import type { ActionName, ActionPhase, ActionsRepository } from '../actions/repository.ts'
import type { RpcClient } from '../rpc/client.ts'
import { probeNode } from './probe.ts'

export type NodeStateName = 'running' | 'warming_up' | 'stopping' | 'stopped' | 'unreachable' | 'unknown'

export const STOP_FLUSH_MS = 10_000

export interface NodeState {
  state: NodeStateName
  message: string | null
  blocks: number | null
  verification_progress: number | null
  initial_block_download: boolean | null
  checked_at: string
  /** The action running now, with its phases so far (an app polls this while its start or restart runs). */
  action: { action: ActionName; started_at: string; phases: ActionPhase[] } | null
}

export async function readNodeState(deps: {
  rpc: RpcClient
  actions: Pick<ActionsRepository, 'running' | 'lastFinished'>
  timeoutMs: number
}): Promise<NodeState> {
  const [probe, running, last] = await Promise.all([
    probeNode(deps.rpc, deps.timeoutMs),
    deps.actions.running(),
    deps.actions.lastFinished(),
  ])
  const base = {
    message: null,
    blocks: null,
    verification_progress: null,
    initial_block_download: null,
    checked_at: new Date().toISOString(),
    action: running
      ? { action: running.action, started_at: new Date(running.started_at).toISOString(), phases: running.phases }
      : null,
  }
  switch (probe.kind) {
    case 'running':
      return { ...base, ...probe, state: 'running' }
    case 'warming_up':
      return { ...base, state: 'warming_up', message: probe.message }
    case 'not-configured':
      return { ...base, state: 'unknown', message: 'rpc_url is not set' }
    case 'timeout':
      return { ...base, state: 'unreachable', message: probe.message }
    case 'other':
      return { ...base, state: 'unknown', message: probe.message }
    case 'refused': {
      const phase = running?.phases.at(-1)?.phase
      if (phase === 'stopping') return { ...base, state: 'stopping', message: 'stop accepted; the node is still flushing' }
      if (phase === 'stopped' || phase === 'starting') return { ...base, state: 'stopped', message: probe.message }
      if (last?.action === 'stop' && last.ok) {
        const flushing = Date.now() - last.finished_at.getTime() < STOP_FLUSH_MS
        return { ...base, state: flushing ? 'stopping' : 'stopped', message: probe.message }
      }
      // The dashboard saw the started node fail (it exited, or never answered): down, not lost.
      if (last && !last.ok && last.phases.some((p) => p.phase === 'starting') && last.phases.at(-1)?.phase === 'failed') {
        return { ...base, state: 'stopped', message: `the last ${last.action} failed: ${last.phases.at(-1)?.message ?? ''}` }
      }
      return { ...base, state: 'unreachable', message: probe.message }
    }
  }
}

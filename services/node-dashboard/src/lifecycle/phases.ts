/**
 * The phases of a start or restart as they happen. Each change is handed to `onChange` (the action route
 * stores them on the action's row, where the app polls them); a failure to store one does not stop the action.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ActionPhase } from '../actions/repository.ts'
import type { RpcClient } from '../rpc/client.ts'
import { type Probe, probeNode, progressText } from './probe.ts'

export type { ActionPhase } from '../actions/repository.ts'

export interface PhaseLog {
  readonly list: ActionPhase[]
  add(phase: ActionPhase['phase'], message?: string): Promise<void>
  last(): ActionPhase | undefined
}

export function phaseLog(onChange: (phases: ActionPhase[]) => Promise<void> = async () => {}): PhaseLog {
  const list: ActionPhase[] = []
  return {
    list,
    async add(phase, message) {
      list.push({ phase, at: new Date().toISOString(), ...(message === undefined ? {} : { message: message.slice(0, 500) }) })
      await onChange([...list]).catch(() => {})
    },
    last: () => list.at(-1),
  }
}

export type WaitOutcome = { ok: true } | { ok: false; detail: string }

/**
 * After a start command exited 0: polls the node until it answers RPC, recording each warm-up status, for
 * at most `waitMs`. A node still warming up at the bound is a success (it is alive); one that stops
 * answering after it had answered died during warm-up; one that never answered did not start.
 */
export async function waitForRpc(
  rpc: RpcClient,
  phases: PhaseLog,
  { waitMs, intervalMs, rpcTimeoutMs }: { waitMs: number; intervalMs: number; rpcTimeoutMs: number },
): Promise<WaitOutcome> {
  const deadline = Date.now() + waitMs
  let answered: string | null = null
  let last: Probe | null = null
  for (;;) {
    const probe = await probeNode(rpc, Math.max(1, Math.min(rpcTimeoutMs, deadline - Date.now())))
    last = probe
    if (probe.kind === 'not-configured') return { ok: true }
    if (probe.kind === 'running') {
      await phases.add('running', progressText(probe))
      return { ok: true }
    }
    if (probe.kind === 'warming_up') {
      answered = probe.message
      if (phases.last()?.message !== probe.message) await phases.add('warming_up', probe.message)
    } else if (probe.kind === 'refused' && answered !== null) {
      return { ok: false, detail: `The node stopped answering during its warm-up (last status: ${answered}).` }
    }
    if (Date.now() + intervalMs > deadline) break
    await sleep(intervalMs)
  }
  if (last?.kind === 'warming_up') return { ok: true }
  const why = last && 'message' in last ? `: ${last.message}` : ''
  return { ok: false, detail: `The node did not answer RPC within ${waitMs} ms of its start${why}` }
}

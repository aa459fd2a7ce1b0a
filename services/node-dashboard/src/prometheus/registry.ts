import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { SampleOutcome, SampleRound } from '../dashboard/sampler.ts'
import type { RpcObserver } from '../rpc/client.ts'
import { isRpcError, type RpcError } from '../rpc/errors.ts'
import { codeLabel, methodLabel } from './labels.ts'
import { createNodeMetrics } from './node-metrics.ts'

const SAMPLE_OUTCOMES: SampleOutcome[] = ['sampled', 'failed', 'not-leader', 'incomplete-settings']

/** How a node action ended: done, refused for missing settings (400), refused while another ran (409), failed. */
export type ActionOutcome = 'ok' | 'invalid' | 'conflict' | 'failed'
const ACTION_OUTCOMES: ActionOutcome[] = ['ok', 'invalid', 'conflict', 'failed']

/** The label values of node_dashboard_actions_total's action: the node actions and the peer changes (as audited). */
export const ACTION_NAMES = [
  'stop',
  'start',
  'restart',
  'start-reindex',
  'peers:disconnect',
  'peers:ban',
  'peers:unban',
  'peers:clear-bans',
] as const
export type CountedAction = (typeof ACTION_NAMES)[number]

export function actionOutcome(statusCode: number): ActionOutcome {
  if (statusCode < 400) return 'ok'
  if (statusCode === 400 || statusCode === 422) return 'invalid'
  if (statusCode === 409) return 'conflict'
  return 'failed'
}

/**
 * The metrics of one app instance, in a registry of its own (several apps share a process in the tests, and the
 * default global registry would mix them). Every label takes values from a bounded set.
 */
export function createDashboardMetrics() {
  const registry = new Registry()
  const registers = [registry]
  collectDefaultMetrics({ register: registry })
  const node = createNodeMetrics(registry)
  const rpcDuration = new Histogram({
    name: 'node_dashboard_rpc_duration_seconds',
    help: 'Time of each node RPC exchange by method (a batch counts for each method it carries); unlisted methods are "other"',
    labelNames: ['method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  })
  const rpcErrors = new Counter({
    name: 'node_dashboard_rpc_errors_total',
    help: 'Failed node RPC methods by method, failure kind (unreachable, timeout, rpc, warmup...) and node error code',
    labelNames: ['method', 'kind', 'code'],
    registers,
  })
  const samplerRuns = new Counter({
    name: 'node_dashboard_sampler_runs_total',
    help: 'Sampler rounds by outcome (sampled, failed, not-leader, incomplete-settings)',
    labelNames: ['outcome'],
    registers,
  })
  const samplerFailures = new Counter({
    name: 'node_dashboard_sampler_failures_total',
    help: 'Failed sampler rounds by reason: the node failure kind, "database", or "other"',
    labelNames: ['reason'],
    registers,
  })
  const samplerLeader = new Gauge({
    name: 'node_dashboard_sampler_leader',
    help: '1 while this instance holds the sampler lease (only the leader reads the node)',
    registers,
  })
  const actions = new Counter({
    name: 'node_dashboard_actions_total',
    help: 'Node actions (stop, start, restart, start-reindex) and peer changes (peers:disconnect, peers:ban, peers:unban, peers:clear-bans) by outcome (ok, invalid, conflict, failed)',
    labelNames: ['action', 'outcome'],
    registers,
  })
  // Known series start at 0, so rate() and increase() see their first event.
  for (const outcome of SAMPLE_OUTCOMES) samplerRuns.inc({ outcome }, 0)
  for (const action of ACTION_NAMES) for (const outcome of ACTION_OUTCOMES) actions.inc({ action, outcome }, 0)

  const rpcObserver: RpcObserver = {
    observe(method, seconds) {
      rpcDuration.observe({ method: methodLabel(method) }, seconds)
    },
    failed(method, error: RpcError) {
      rpcErrors.inc({ method: methodLabel(method), kind: error.kind, code: codeLabel(error.rpcCode) })
    },
  }

  return {
    registry,
    rpcObserver,
    /** The sampler's round: its outcome counted, and the node metrics replaced by what it read. */
    recordSampleRound(round: SampleRound) {
      samplerRuns.inc({ outcome: round.outcome })
      samplerLeader.set(round.leader ? 1 : 0)
      const failure = round.failure
      if (failure) {
        const reason = failure.step === 'database' ? 'database' : isRpcError(failure.error) ? failure.error.kind : 'other'
        samplerFailures.inc({ reason })
      }
      if (round.summary) node.read(round.summary)
      else if (failure?.step === 'node') node.unreachable()
      else node.unknown()
    },
    recordAction(action: CountedAction, outcome: ActionOutcome) {
      actions.inc({ action, outcome })
    },
  }
}

export type DashboardMetrics = ReturnType<typeof createDashboardMetrics>

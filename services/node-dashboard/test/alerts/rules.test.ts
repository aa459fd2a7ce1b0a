import { test } from 'tap'
import { judge, type NodeState, nextNodeState, type Observation, thresholdProblem } from '../../src/alerts/rules.ts'

const t0 = Date.parse('2026-01-01T00:00:00Z')
const at = (minutes: number) => new Date(t0 + minutes * 60_000)
const up = (minutes: number, height: number): Observation => ({
  at: at(minutes),
  reachable: true,
  failure: null,
  warmup: null,
  initialBlockDownload: false,
  height,
  peers: 8,
  mempoolBytes: 5_000_000,
  walletBalance: 0.5,
})
const down = (minutes: number): Observation => ({
  ...up(minutes, 0),
  reachable: false,
  failure: 'connection refused',
  height: null,
  peers: null,
  mempoolBytes: null,
  walletBalance: null,
  initialBlockDownload: null,
})
const empty: NodeState = { lastRoundAt: null, unreachableSince: null, tipHeight: null, tipSince: null }

/** Runs the rounds and returns whether the rule held after each. */
function run(kind: Parameters<typeof judge>[0], threshold: number | null, rounds: Observation[]) {
  let state = empty
  return rounds.map((o) => {
    state = nextNodeState(state, o)
    return judge(kind, threshold, state, o).holds
  })
}

test('node unreachable for N minutes counts from the first round without an answer', async (t) => {
  t.same(run('node_unreachable', 5, [up(0, 1), down(1), down(4), down(6), down(7), up(8, 1)]), [
    false,
    false,
    false,
    true,
    true,
    false,
  ])
  t.same(run('node_unreachable', 0, [down(0), up(1, 1)]), [true, false], '0 minutes: at the first failed round')
})

test('tip not advancing for N minutes counts from the round the height last changed; a down node says nothing', async (t) => {
  t.same(run('tip_stalled', 30, [up(0, 10), up(20, 10), up(31, 10), down(40), up(45, 11), up(50, 11)]), [
    false,
    false,
    true,
    null,
    false,
    false,
  ])
})

test('peers, mempool and wallet compare with N; missing numbers keep the state', async (t) => {
  t.same(run('peers_below', 8, [up(0, 1), { ...up(1, 1), peers: 7 }, down(2)]), [false, true, null])
  t.same(run('mempool_above', 5, [up(0, 1), { ...up(1, 1), mempoolBytes: 5_000_001 }]), [false, true])
  t.same(run('wallet_balance_below', 1, [up(0, 1), { ...up(1, 1), walletBalance: null }]), [true, null])
  t.same(run('initial_download', null, [{ ...up(0, 1), initialBlockDownload: true }, { ...down(1) }, up(2, 1)]), [
    true,
    null,
    false,
  ])
  t.same(run('initial_download', null, [{ ...up(0, 1), warmup: 'Loading wallet…', height: null }]), [true])
})

test('thresholds are strict per kind', async (t) => {
  t.equal(thresholdProblem('node_unreachable', 0), null)
  t.equal(thresholdProblem('tip_stalled', 1), null)
  t.equal(thresholdProblem('mempool_above', 0.5), null)
  t.equal(thresholdProblem('initial_download', null), null)
  t.ok(thresholdProblem('tip_stalled', 0))
  t.ok(thresholdProblem('peers_below', 1.5))
  t.ok(thresholdProblem('mempool_above', Number.NaN))
  t.ok(thresholdProblem('wallet_balance_below', 0))
  t.ok(thresholdProblem('initial_download', 1))
  t.ok(thresholdProblem('node_unreachable', null))
})

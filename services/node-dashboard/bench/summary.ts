/**
 * Benchmarks (run: node --import tsx services/node-dashboard/bench/summary.ts; DATABASE_URL for PostgreSQL).
 * 1. GET /api/dashboard/summary against the simulator adding 20 ms per call, as a ratio of one single
 *    RPC call in the same run (target < 1.2x: the calls run concurrently).
 * 2. GET /api/dashboard/history/all?limit=20000 over one million samples (target < 30 ms).
 */
import { performance } from 'node:perf_hooks'
import { startNodeSimulator } from '@app/node-simulator'
import { build, login } from '../test/helper.ts'

const teardowns: (() => unknown)[] = []
const t = { teardown: (fn: () => unknown) => teardowns.push(fn) }

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

async function time(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await fn()
    samples.push(performance.now() - started)
  }
  return median(samples)
}

const results: string[] = []
let failed = false
function report(name: string, value: string, ok: boolean) {
  results.push(`${ok ? 'PASS' : 'FAIL'}  ${name}: ${value}`)
  if (!ok) failed = true
}

try {
  const app = await build(t, { env: { METRICS_SAMPLE_SECONDS: '86400' } })
  const cookie = await login(app)

  // 1. Summary latency.
  const sim = await startNodeSimulator({ latencyMs: 20 })
  teardowns.push(() => sim.close())
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: sim.password })
  const summary = () => app.inject({ method: 'GET', url: '/api/dashboard/summary', headers: { cookie } })
  const oneCall = () => app.rpc.call('getblockchaininfo')
  for (let i = 0; i < 5; i++) await Promise.all([summary(), oneCall()])
  const single = await time(30, oneCall)
  const round = await time(30, async () => {
    const res = await summary()
    if (res.statusCode !== 200) throw new Error(`summary answered ${res.statusCode}: ${res.body}`)
  })
  const ratio = round / single
  report(
    'summary latency',
    `${round.toFixed(1)} ms vs one call ${single.toFixed(1)} ms = ${ratio.toFixed(2)}x (target < 1.2x)`,
    ratio < 1.2,
  )

  // 2. History over one million samples (15 s apart, the default sample interval), against the
  //    same request when only 20000 samples exist (one sample per point: nothing to downsample).
  const seed = async (from: number, to: number) => {
    await app.db.query(
      `INSERT INTO metrics (sampled_at, height, headers, verification_progress, difficulty, mempool_tx, mempool_bytes,
         mempool_usage, peers_in, peers_out, network_hashps, bytes_sent, bytes_recv, wallet_balance)
       SELECT now() - make_interval(secs => (15 * (1000000 - i))::float8), i / 40, i / 40, 1, 1e12 + i, i % 5000,
         (i % 5000) * 300, (i % 5000) * 1200, i % 10, 8, 5e20 + i, i * 1000, i * 3000, 0.5 * i
       FROM generate_series($1::bigint, $2::bigint) AS i`,
      [from, to],
    )
    // What autovacuum does after a bulk load on a live system (hint bits, visibility map, statistics):
    // without it the first reads after seeding pay for writing those pages, not for the history query.
    await app.db.query('VACUUM ANALYZE metrics')
    await app.db.query('VACUUM ANALYZE metrics_rollup')
  }
  const history = async (limit = 20000) => {
    const res = await app.inject({ method: 'GET', url: `/api/dashboard/history/all?limit=${limit}`, headers: { cookie } })
    if (res.statusCode !== 200) throw new Error(`history answered ${res.statusCode}`)
    return res
  }
  // Each limit is a new computation (the latest `all` answer is cached until a sample is added).
  let limit = 20000
  const cold = () => history(limit--)
  // Oldest first, in chunks, the way a long-running sampler fills the tables (the rollup trigger sees each chunk).
  await seed(1, 20_000)
  await history()
  for (let i = 0; i < 3; i++) await cold()
  const baseline = await time(15, cold)
  const seeded = performance.now()
  for (let from = 20_001; from <= 1_000_000; from += 98_000) await seed(from, Math.min(from + 97_999, 1_000_000))
  process.stderr.write(`seeded 1000000 samples in ${((performance.now() - seeded) / 1000).toFixed(1)} s\n`)
  const points = (await history()).json().points.length
  limit = 20000
  // A few requests first, as a running server has had (JIT, caches); then the median of 15, each a new limit.
  for (let i = 0; i < 3; i++) await cold()
  const elapsed = await time(15, cold)
  const warm = await time(9, () => history(20000))
  const json = await time(9, async () => JSON.stringify(JSON.parse((await history(20000)).body)))
  report(
    'history 20000 of 1M samples',
    `computed ${elapsed.toFixed(1)} ms for ${points} points (target < 30 ms); same request on 20000 samples ` +
      `${baseline.toFixed(1)} ms (ratio ${(elapsed / baseline).toFixed(2)}x); cached repeat ${warm.toFixed(1)} ms; ` +
      `just parsing + stringifying that body costs ${json.toFixed(1)} ms here`,
    elapsed < 30 && points <= 20000,
  )
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
process.stdout.write(`${results.join('\n')}\n`)
process.exitCode = failed ? 1 : 0

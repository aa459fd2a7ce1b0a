/**
 * Memory of the production server (dist/server.js run with plain node: `pnpm --filter @app/node-dashboard build`
 * first) over a scripted hour-equivalent workload, and a leak check. Run:
 *   node --import tsx services/node-dashboard/bench/memory.ts      (DATABASE_URL for PostgreSQL)
 * Settings: WORKLOAD_SECONDS (default 240: with a sample a second, an hour of 15-second sampling),
 * LEAK_REQUESTS (default 10000 of each kind; 0 skips the check), SAMPLES (stored samples seeded first, default
 * 1000000), BENCH_NODE_ARGS (node flags for the server, to compare settings). The server starts as package.json
 * `serve` starts it (its malloc variables and node flags); a malloc variable in the environment wins, to compare.
 * 1. Seeds SAMPLES metric samples 15 s apart ending now (the database is made by the server's first start).
 * 2. Starts the server with the sampler running every second against the node simulator, and drives from
 *    4 clients: history of every window at limit 20000, the summary, the RPC explorer (call, commands, help),
 *    settings and a node action (refused: no SSH host is set). Tree RSS (the process and any children) is
 *    sampled every 200 ms; steady state is the median over the second half of the workload.
 * 3. Leak check: LEAK_REQUESTS of each kind, heap after GC and tree RSS at 10 checkpoints; flat when the
 *    fitted line rises less than 4 MiB of heap and 16 MiB of RSS across the run.
 * Targets: embedded database peak < 250 MiB and steady < 180 MiB; PostgreSQL peak < 150 MiB.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { migrate, openDatabase } from '@app/common'
import { startNodeSimulator } from '@app/node-simulator'
import { eventually, freePort } from '@app/testing'
import {
  heapOf,
  type LeakCheckpoint,
  leakVerdict,
  median,
  sampleMemory,
  spawnWithReporter,
  treeRssMiB,
} from '@app/testing/memory'
import { serveSettings } from '../../../scripts/serve-settings.mjs'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const workloadSeconds = Number(process.env.WORKLOAD_SECONDS ?? 240)
const leakRequests = Number(process.env.LEAK_REQUESTS ?? 10_000)
const sampleCount = Number(process.env.SAMPLES ?? 1_000_000)
const url = process.env.DATABASE_URL
const targets = url ? { peak: 150, steady: Number.POSITIVE_INFINITY } : { peak: 250, steady: 180 }
const PASSWORD = 'bench password'
// The server starts as package.json `serve` starts it (`NAME=value … node FLAGS dist/server.js`).
const serve = serveSettings(root)
// BENCH_NODE_ARGS compares other node flags; a malloc variable set in the environment wins over serve's.
const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? serve.nodeArgs

const dataDir = await mkdtemp(path.join(tmpdir(), 'dashboard-memory-'))
const sim = await startNodeSimulator({})
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const env = {
  ...serve.env,
  ...process.env,
  PORT: String(port),
  DATA_DIR: dataDir,
  DASHBOARD_PASSWORD: PASSWORD,
  METRICS_SAMPLE_SECONDS: '1',
  // A million samples 15 s apart span 174 days: all of them are kept.
  HISTORY_RETENTION_DAYS: '365',
  LOG_LEVEL: 'warn',
  LOG_FORMAT: 'json',
  // The bench is one client: login and RPC budgets do not apply to what is measured.
  LOGIN_MAX_FAILURES: '1000000',
}

function start() {
  const server = spawnWithReporter('dist/server.js', { cwd: root, env, nodeArgs })
  const exited = new Promise((resolve) => server.once('exit', resolve))
  const ready = eventually(async () => (await fetch(`${base}/api/health`)).ok || undefined, {
    what: 'dashboard health',
    timeoutMs: 300_000,
    intervalMs: 200,
  })
  return {
    server,
    ready,
    async stop() {
      server.kill('SIGTERM')
      await exited
    },
  }
}

async function seed() {
  const db = await openDatabase({ url, dataDir: path.join(dataDir, 'pgdata') })
  try {
    await migrate(db, path.join(root, 'migrations'))
    const chunk = 100_000
    for (let from = 1; from <= sampleCount; from += chunk) {
      await db.query(
        `INSERT INTO metrics (sampled_at, height, headers, verification_progress, difficulty, mempool_tx, mempool_bytes,
           mempool_usage, peers_in, peers_out, network_hashps, bytes_sent, bytes_recv, wallet_balance)
         SELECT now() - make_interval(secs => (15 * ($3::bigint - i))::float8), i / 40, i / 40, 1, 1e12 + i, i % 5000,
           (i % 5000) * 300, (i % 5000) * 1200, i % 10, 8, 5e20 + i, i * 1000, i * 3000, 0.5 * i
         FROM generate_series($1::bigint, $2::bigint) AS i`,
        [from, Math.min(from + chunk - 1, sampleCount), sampleCount],
      )
    }
    await db.query('VACUUM ANALYZE metrics')
    await db.query('VACUUM ANALYZE metrics_rollup')
  } finally {
    await db.close()
  }
}

let cookie = ''
async function call(method: string, pathname: string, body?: unknown): Promise<number> {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  await res.arrayBuffer()
  return res.status
}

/** Each kind of request with the statuses it may answer. */
const kinds: Record<string, { run: () => Promise<number>; ok: number[] }> = {
  ...Object.fromEntries(
    ['5m', '30m', '2h', '6h', 'all'].map((w) => [
      `history ${w}`,
      { run: () => call('GET', `/api/dashboard/history/${w}?limit=20000`), ok: [200] },
    ]),
  ),
  summary: { run: () => call('GET', '/api/dashboard/summary'), ok: [200] },
  'rpc call': { run: () => call('POST', '/api/rpc/call', { method: 'getblockchaininfo' }), ok: [200] },
  'rpc commands': { run: () => call('GET', '/api/rpc/commands'), ok: [200] },
  'rpc help': { run: () => call('GET', '/api/rpc/help/getblockcount'), ok: [200] },
  settings: { run: () => call('GET', '/api/settings'), ok: [200] },
  // No SSH host is set: the action is refused before any connection (its audit row is still written).
  'node action': { run: () => call('POST', '/api/actions/restart'), ok: [400] },
}

const statuses: Record<string, number> = {}
async function runKind(name: string, count: number, clients = 4): Promise<void> {
  const kind = kinds[name]
  if (!kind) throw new Error(`no request kind ${name}`)
  let left = count
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left-- > 0) {
        const status = await kind.run()
        if (!kind.ok.includes(status)) statuses[`${name} ${status}`] = (statuses[`${name} ${status}`] ?? 0) + 1
      }
    }),
  )
}

const lines: string[] = []
let failed = false
function report(name: string, value: string, ok: boolean | null) {
  lines.push(`${ok === null ? 'INFO' : ok ? 'PASS' : 'FAIL'}  ${name}: ${value}`)
  // As it comes too (stderr): a long run shows its progress.
  process.stderr.write(`${lines[lines.length - 1]}\n`)
  if (ok === false) failed = true
}
const mib = (n: number) => `${n.toFixed(0)} MiB`
/** CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

try {
  // 1. The server's first start makes and migrates the database; then the samples go in while it is stopped
  //    (the embedded database has one writer).
  const first = start()
  const firstPeak = sampleMemory(first.server.pid as number)
  await first.ready
  firstPeak.stop()
  await first.stop()
  report('first start (creates the database)', `peak ${mib(firstPeak.peak())}`, null)
  const seeded = performance.now()
  if (sampleCount > 0) await seed()
  process.stderr.write(`seeded ${sampleCount} samples in ${((performance.now() - seeded) / 1000).toFixed(0)} s\n`)

  // 2. The workload.
  const { server, ready, stop } = start()
  const pid = server.pid as number
  const memory = sampleMemory(pid)
  try {
    await ready
    const startPeak = memory.peak()
    const afterStart = treeRssMiB(pid)
    const workloadMark = memory.mark()
    const loginRes = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    })
    cookie = (loginRes.headers.get('set-cookie') ?? '').split(';')[0] as string
    if (loginRes.status !== 200 || !cookie) throw new Error(`login answered ${loginRes.status}`)
    const put = await call('PUT', '/api/settings', { rpc_url: sim.url, rpc_username: sim.user, rpc_password: sim.password })
    if (put !== 200) throw new Error(`settings answered ${put}`)

    const started = performance.now()
    const cpuAtStart = cpuMs(pid)
    let secondHalf: { since(): number[] } | null = null
    let rounds = 0
    while (performance.now() - started < workloadSeconds * 1000) {
      if (!secondHalf && performance.now() - started > (workloadSeconds * 1000) / 2) secondHalf = memory.mark()
      await Promise.all(Object.keys(kinds).map((name) => runKind(name, 1, 1)))
      await runKind('summary', 4)
      rounds++
    }
    const steady = median(secondHalf?.since() ?? memory.samples)
    const cpuPerRound = (cpuMs(pid) - cpuAtStart) / rounds
    const heap = await heapOf(server, false)
    report(
      `workload ${workloadSeconds} s (${rounds} rounds of ${Object.keys(kinds).length + 4} requests, server CPU ${cpuPerRound.toFixed(0)} ms a round)`,
      `start peak ${mib(startPeak)}, after start ${mib(afterStart)}; workload peak ${mib(Math.max(...workloadMark.since()))}; steady ${mib(steady)} (${Number.isFinite(targets.steady) ? `target < ${targets.steady} MiB` : 'no target'}); heap used ${heap.heapUsed} MiB of ${heap.heapTotal}, external ${heap.external} MiB`,
      steady < targets.steady,
    )

    // 3. Leak check, one kind at a time.
    for (const name of leakRequests > 0 ? Object.keys(kinds) : []) {
      const points: LeakCheckpoint[] = []
      const step = Math.max(1, Math.floor(leakRequests / 10))
      for (let done = 0; done <= leakRequests; done += step) {
        if (done > 0) await runKind(name, step)
        const { heapUsed } = await heapOf(server)
        points.push({ requests: done, heapUsed, rss: treeRssMiB(pid) })
      }
      const verdict = leakVerdict(points, 4, 16)
      report(
        `leak check ${name} x${leakRequests}`,
        `heap ${points[1]?.heapUsed} -> ${points[points.length - 1]?.heapUsed} MiB (fitted growth ${verdict.heapGrowth.toFixed(1)}), ` +
          `RSS ${mib(points[1]?.rss ?? 0)} -> ${mib(points[points.length - 1]?.rss ?? 0)} (fitted growth ${verdict.rssGrowth.toFixed(1)})`,
        verdict.ok,
      )
    }
    memory.stop()
    report('peak over the run', `${mib(memory.peak())} (target < ${targets.peak} MiB)`, memory.peak() < targets.peak)
    report('unexpected statuses', JSON.stringify(statuses), Object.keys(statuses).length === 0)
  } finally {
    memory.stop()
    await stop()
  }
} finally {
  await sim.close()
  await rm(dataDir, { recursive: true, force: true })
}
console.log(`node-dashboard memory, ${url ? 'PostgreSQL' : 'embedded database'}, ${sampleCount} stored samples`)
console.log(lines.join('\n'))
process.exitCode = failed ? 1 : 0

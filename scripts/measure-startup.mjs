// Start-up figures for the README: time from process start to the first 200 of GET /api/health, and the
// processes (and threads) the service runs: on the embedded database with a fresh data folder each run, or on
// the PostgreSQL database MEASURE_DATABASE_URL names (migrated by the first run). Also the CPU time to the
// first healthy answer and the peak resident memory of the process tree while starting (sampled every ~20 ms).
// Usage: node scripts/measure-startup.mjs <service folder> [command...]  (default command: node dist/server.js)
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

const [serviceDir, ...command] = process.argv.slice(2)
if (!serviceDir) throw new Error('usage: node scripts/measure-startup.mjs <service folder> [command...]')
const argv = command.length > 0 ? command : ['node', 'dist/server.js']
const runs = Number(process.env.RUNS ?? 3)

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** The process and every descendant, from /proc (pid, thread count, command line). */
function processTree(rootPid) {
  const listing = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,nlwp=,args='], { encoding: 'utf8' }).stdout
  const rows = listing
    .trim()
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/))
    .filter(Boolean)
    .map(([, pid, ppid, threads, args]) => ({ pid: Number(pid), ppid: Number(ppid), threads: Number(threads), args }))
  const tree = rows.filter((row) => row.pid === rootPid)
  for (let i = 0; i < tree.length; i++) tree.push(...rows.filter((row) => row.ppid === tree[i].pid))
  return tree
}

const rssKbOf = (pid) => {
  try {
    return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0)
  } catch {
    return 0 // ended between the listing and the read
  }
}
const treeRssKb = (pid) => processTree(pid).reduce((sum, p) => sum + rssKbOf(p.pid), 0)

/** CPU seconds of the process and of its children it has waited for (/proc/<pid>/stat utime..cstime). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100
}

async function measureOnce() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'startup-'))
  const port = await freePort()
  const started = performance.now()
  let peakKb = 0
  const child = spawn(argv[0], argv.slice(1), {
    cwd: serviceDir,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: process.env.MEASURE_DATABASE_URL ?? '',
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  })
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${argv.join(' ')} exited with ${child.exitCode}`)
      peakKb = Math.max(peakKb, treeRssKb(child.pid))
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.status === 200,
        () => false,
      )
      if (ok) break
      if (performance.now() - started > 120_000) throw new Error('no healthy answer within 120 s')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const ms = performance.now() - started
    const cpu = cpuSeconds(child.pid)
    // Settle a moment so helpers started right after listening are counted too.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const tree = processTree(child.pid)
    const rssKb = tree.reduce((sum, p) => sum + rssKbOf(p.pid), 0)
    return { ms, cpu, tree, rssKb, peakKb: Math.max(peakKb, rssKb) }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const results = []
for (let i = 0; i < runs; i++) results.push(await measureOnce())
const times = results.map((r) => r.ms).sort((a, b) => a - b)
const last = results.at(-1)
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(`${path.basename(path.resolve(serviceDir))}: ${argv.join(' ')}`)
console.log(
  `  start -> /api/health 200: median ${Math.round(times[Math.floor(times.length / 2)])} ms (runs: ${times.map(Math.round).join(', ')})`,
)
console.log(
  `  processes: ${last.tree.length}, threads: ${last.tree.reduce((n, p) => n + p.threads, 0)}, RSS: ${Math.round(last.rssKb / 1024)} MB`,
)
console.log(
  `  CPU to healthy (service and its waited-for children): median ${median(results.map((r) => r.cpu)).toFixed(1)} s; ` +
    `peak RSS of the process tree while starting: median ${Math.round(median(results.map((r) => r.peakKb)) / 1024)} MB, ` +
    `max ${Math.round(Math.max(...results.map((r) => r.peakKb)) / 1024)} MB`,
)
for (const p of last.tree) console.log(`    ${p.pid} (${p.threads} threads) ${p.args.slice(0, 110)}`)

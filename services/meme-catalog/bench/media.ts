/**
 * Media reads against nginx. The catalog app (its own process, rate limits, security headers, ETag and view counting
 * on, the default media cache) and nginx (one worker, sendfile) serve the same 16 KB WebP files; the same load
 * generator (bench/load.ts, 32 keep-alive connections) drives both in alternating runs, on the embedded database and,
 * with DATABASE_URL, on PostgreSQL. With REDIS_URL an app with the shared Redis limiter joins the alternation
 * (informative), and on PostgreSQL an app that writes its request log lines (LOG_LEVEL=info; the others run at
 * warn). The resized renditions are measured the same way (informative; the first request of a meme renders them).
 * Then a memory run: more distinct images than a 1 MiB cache holds, the cache size and RSS sampled.
 *   node --import tsx bench/media.ts [--seconds 8] [--rounds 3] [--images 20] [--connections 32]
 * Prints req/s, p50/p99, server CPU per request and the client's CPU use, then the targets with PASS/FAIL.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { cpuMs } from './catalog-process.ts'
import { type LoadResult, runLoad } from './load.ts'
import { nginxAvailable, startNginx } from './nginx.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    images: { type: 'string', default: '20' },
    connections: { type: 'string', default: '32' },
    'memory-seconds': { type: 'string', default: '15' },
    'memory-only': { type: 'boolean', default: false },
  },
})
const seconds = Number(args.seconds)
const rounds = Number(args.rounds)
const images = Number(args.images)
const connections = Number(args.connections)
const TARGET = 0.8
const MEMORY_CACHE_MB = 1
const MEMORY_IMAGES = 256

interface AppProcess {
  child: ChildProcess
  port: number
  ids: string[]
  bytes: number
  request<T>(message: string): Promise<T>
  stop(): Promise<void>
}

/** `env` adds settings; an undefined value removes one inherited from this process. */
async function startApp(env: Record<string, string | undefined>, count: number, mediaDir: string): Promise<AppProcess> {
  const merged: Record<string, string | undefined> = { ...process.env, ...env }
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key]
  const child = fork(path.join(here, 'media-server.ts'), [String(count), mediaDir], {
    // --expose-gc: memory is sampled after a full collection (only the memory run asks for samples).
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: merged,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const ready = await new Promise<{ port: number; ids: string[]; bytes: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number; ids: string[]; bytes: number }))
    child.once('exit', (code) => reject(new Error(`media server exited with ${code}`)))
  })
  return {
    child,
    ...ready,
    request: <T>(message: string) =>
      new Promise<T>((resolve) => {
        child.once('message', (m) => resolve(m as T))
        child.send(message)
      }),
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.disconnect()
      await exited
    },
  }
}

/** bench/media-floor.ts: the same files from memory through bare node:http or a bare Fastify route. */
async function startFloor(kind: 'http' | 'fastify', mediaDir: string) {
  const child = fork(path.join(here, 'media-floor.ts'), [kind, mediaDir], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number })))
  return {
    server: { name: kind === 'http' ? 'node:http floor' : 'Fastify floor', port, pids: () => [child.pid ?? 0] },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.disconnect()
      await exited
    },
  }
}

interface Server {
  name: string
  port: number
  pids(): number[]
}

interface Run {
  load: LoadResult
  /** Server CPU per request, µs. */
  serverCpu: number
  /** Load generator CPU over the run's wall time (1 = one core busy). */
  clientCores: number
}

/**
 * The resized renditions (/media/{id}/{name}, the GIPHY-compatible API's images): the first request of each meme
 * renders all six and stores them (timed), then the app and nginx serve the same rendition bytes in alternating runs.
 */
async function measureRenditions(app: AppProcess, nginx: { port: number; pids(): number[] }, mediaDir: string, database: string) {
  const names = ['fixed_width', 'fixed_height_small', 'preview_webp']
  const firstMs: number[] = []
  const appPaths: string[] = []
  const nginxPaths: string[] = []
  for (const id of app.ids) {
    const started = performance.now()
    for (const name of names) {
      const res = await fetch(`http://127.0.0.1:${app.port}/media/${id}/${name}`)
      if (res.status !== 200) throw new Error(`rendition ${name} of ${id} answered ${res.status}`)
      await writeFile(path.join(mediaDir, `${id}.${name}`), Buffer.from(await res.arrayBuffer()))
      appPaths.push(`/media/${id}/${name}`)
      nginxPaths.push(`/media/${id}.${name}`)
    }
    firstMs.push(performance.now() - started)
  }
  firstMs.sort((a, b) => a - b)
  const servers: [Server, string[]][] = [
    [{ name: 'nginx', port: nginx.port, pids: () => nginx.pids() }, nginxPaths],
    [{ name: 'app', port: app.port, pids: () => [app.child.pid ?? 0] }, appPaths],
  ]
  const runs = new Map<string, Run[]>([
    ['nginx', []],
    ['app', []],
  ])
  for (let round = 0; round < rounds; round++) {
    for (const [server, paths] of round % 2 === 0 ? servers : [...servers].reverse()) {
      const run = await measure(server, paths, seconds * 1000)
      runs.get(server.name)?.push(run)
      console.log(line(`renditions, ${server.name} #${round + 1}`, run))
    }
  }
  const total = (name: string) => (runs.get(name) ?? []).reduce((sum, r) => sum + r.load.requests, 0)
  const cpu = (name: string) =>
    (runs.get(name) ?? []).reduce((sum, r) => sum + r.serverCpu * r.load.requests, 0) / Math.max(1, total(name))
  const ratio = total('app') / Math.max(1, total('nginx'))
  const median = firstMs[Math.floor(firstMs.length / 2)] ?? 0
  const measured =
    `${ratio.toFixed(2)}x nginx (${(total('app') / (rounds * seconds)).toFixed(0)} vs ${(total('nginx') / (rounds * seconds)).toFixed(0)} req/s, ` +
    `CPU ${cpu('app').toFixed(0)} vs ${cpu('nginx').toFixed(0)} µs/req); first request of a meme (renders all six) ` +
    `median ${median.toFixed(0)} ms, max ${(firstMs.at(-1) ?? 0).toFixed(0)} ms`
  console.log(`${database}: renditions ${names.join(', ')}: ${measured}`)
  informative.push({ name: `renditions, ${database}`, measured })
}

async function measure(server: Server, paths: string[], durationMs: number): Promise<Run> {
  const pids = server.pids()
  const before = pids.reduce((sum, pid) => sum + cpuMs(pid), 0)
  const client = process.cpuUsage()
  const load = await runLoad({ port: server.port, paths, connections, durationMs })
  const used = process.cpuUsage(client)
  const serverMs = pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - before
  return {
    load,
    serverCpu: (serverMs * 1000) / Math.max(1, load.requests),
    clientCores: (used.user + used.system) / 1000 / durationMs,
  }
}

const line = (name: string, r: Run) =>
  `  ${name.padEnd(22)} ${r.load.perSecond.toFixed(0).padStart(6)} req/s  p50 ${r.load.p50.toFixed(2)} ms  p99 ${r.load.p99.toFixed(2)} ms  ` +
  `server CPU ${r.serverCpu.toFixed(0)} µs/req  client ${(r.clientCores * 100).toFixed(0)}% of a core  errors ${r.load.errors}, not 200 ${r.load.non200}`

const targets: { name: string; measured: string; pass: boolean | null }[] = []
/** Figures without a target of their own, printed under the targets. */
const informative: { name: string; measured: string }[] = []
console.log(
  `Media bench ${new Date().toISOString()}: ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)}; ` +
    `${images} images, ${connections} connections, ${rounds} rounds of ${seconds} s per server, alternating.`,
)

const databases: { name: string; env: Record<string, string> }[] = [{ name: 'embedded', env: {} }]
if (process.env.DATABASE_URL) databases.push({ name: 'PostgreSQL', env: { DATABASE_URL: process.env.DATABASE_URL } })
else console.log('PostgreSQL: SKIPPED (set DATABASE_URL to a fresh database to measure it)')

for (const database of args['memory-only'] ? [] : databases) {
  if (!nginxAvailable()) {
    console.log(`nginx comparison on ${database.name}: SKIPPED (/usr/sbin/nginx is missing; apt-get install nginx-light)`)
    targets.push({ name: `media >= ${TARGET}x nginx, ${database.name}`, measured: 'skipped: no nginx', pass: null })
    continue
  }
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'media-files-'))
  // Without DATABASE_URL the app runs PGlite in its own process.
  const appEnv = { DATABASE_URL: undefined, REDIS_URL: undefined, ...database.env }
  const app = await startApp(appEnv, images, mediaDir)
  const redisApp = process.env.REDIS_URL ? await startApp({ ...appEnv, REDIS_URL: process.env.REDIS_URL }, 0, mediaDir) : null
  // Informative, PostgreSQL only (it shares the images): the same app writing its request log lines (to /dev/null).
  const loggingApp = database.env.DATABASE_URL ? await startApp({ ...appEnv, MEDIA_BENCH_LOG_LEVEL: 'info' }, 0, mediaDir) : null
  const nginx = await startNginx(mediaDir)
  // Informative, once: what node:http and Fastify cost before any of the app's work.
  const floors = database.name === 'embedded' ? [await startFloor('http', mediaDir), await startFloor('fastify', mediaDir)] : []
  try {
    const paths = app.ids.map((id) => `/media/${id}`)
    // Same bytes from both.
    for (const p of paths.slice(0, 3)) {
      const [a, b] = await Promise.all(
        [app.port, nginx.port].map(async (port) => {
          const res = await fetch(`http://127.0.0.1:${port}${p}`)
          return `${res.status} ${Buffer.from(await res.arrayBuffer()).toString('base64')}`
        }),
      )
      if (a !== b) throw new Error(`app and nginx answer differently for ${p}: ${a.slice(0, 40)} / ${b.slice(0, 40)}`)
    }
    const servers: Server[] = [
      { name: 'nginx', port: nginx.port, pids: () => nginx.pids() },
      { name: `app (${database.name})`, port: app.port, pids: () => [app.child.pid ?? 0] },
    ]
    // The Redis app serves the same ids from the same database (PostgreSQL only: PGlite is one process's).
    if (redisApp && database.env.DATABASE_URL)
      servers.push({ name: 'app, Redis limiter', port: redisApp.port, pids: () => [redisApp.child.pid ?? 0] })
    if (loggingApp) servers.push({ name: 'app, info log lines', port: loggingApp.port, pids: () => [loggingApp.child.pid ?? 0] })
    for (const floor of floors) servers.push(floor.server)
    console.log(`${database.name}: ${app.ids.length} images of ${(app.bytes / app.ids.length / 1024).toFixed(1)} KiB on average`)
    for (const server of servers) await runLoad({ port: server.port, paths, connections, durationMs: 2000 })
    const runs = new Map<string, Run[]>(servers.map((s) => [s.name, []]))
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse()
      for (const server of order) {
        const run = await measure(server, paths, seconds * 1000)
        runs.get(server.name)?.push(run)
        console.log(line(`${server.name} #${round + 1}`, run))
      }
    }
    const total = (name: string) => (runs.get(name) ?? []).reduce((sum, r) => sum + r.load.requests, 0)
    const cpu = (name: string) => {
      const list = runs.get(name) ?? []
      return list.reduce((sum, r) => sum + r.serverCpu * r.load.requests, 0) / Math.max(1, total(name))
    }
    const appName = servers[1].name
    const ratio = total(appName) / total('nginx')
    const cpuRatio = cpu('nginx') / cpu(appName)
    const rate = (name: string) => (total(name) / (rounds * seconds)).toFixed(0)
    console.log(
      `${database.name}: app ${rate(appName)} req/s vs nginx ${rate('nginx')} req/s = ${ratio.toFixed(2)}x; ` +
        `server CPU ${cpu(appName).toFixed(0)} vs ${cpu('nginx').toFixed(0)} µs/req (nginx/app ${cpuRatio.toFixed(2)}x)`,
    )
    for (const extra of servers.slice(2))
      console.log(
        `  ${extra.name}: ${rate(extra.name)} req/s (${(total(extra.name) / total('nginx')).toFixed(2)}x nginx), ${cpu(extra.name).toFixed(0)} µs/req`,
      )
    targets.push({
      name: `media >= ${TARGET}x nginx, ${database.name}`,
      measured: `${ratio.toFixed(2)}x (${rate(appName)} vs ${rate('nginx')} req/s; CPU/req ratio ${cpuRatio.toFixed(2)}x)`,
      pass: ratio >= TARGET,
    })
    // 304 answers (informative): what the rate limit, headers and counting cost without the bytes.
    const revalidate = (p: string) => `If-None-Match: "${p.slice('/media/'.length)}"\r\n`
    const notModified = await runLoad({ port: app.port, paths, connections, durationMs: seconds * 1000, headers: revalidate })
    console.log(`  app 304 (If-None-Match): ${notModified.perSecond.toFixed(0)} req/s, p50 ${notModified.p50.toFixed(2)} ms`)
    await measureRenditions(app, nginx, mediaDir, database.name)
  } finally {
    await nginx.stop()
    for (const floor of floors) await floor.stop()
    await redisApp?.stop()
    await loggingApp?.stop()
    await app.stop()
    await rm(mediaDir, { recursive: true, force: true })
  }
}

// Memory stays bounded: 4x more distinct images than the cache holds, read round-robin (every read a miss). On
// PostgreSQL when given (the embedded database's WebAssembly memory grows as it reads and would hide the app's);
// the pass/fail figure is the JavaScript heap plus Buffer memory after a full GC, where the cache lives.
{
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'media-files-'))
  const memoryDatabase = databases[databases.length - 1]
  const app = await startApp(
    { DATABASE_URL: undefined, REDIS_URL: undefined, ...memoryDatabase.env, MEDIA_CACHE_MB: String(MEMORY_CACHE_MB) },
    MEMORY_IMAGES,
    mediaDir,
  )
  try {
    interface Stats {
      cacheBytes: number
      cacheMaxBytes: number
      rss: number
      heapUsed: number
      arrayBuffers: number
    }
    const paths = app.ids.map((id) => `/media/${id}`)
    const samples: Stats[] = []
    const sampling = setInterval(async () => samples.push(await app.request<Stats>('stats')), 1000)
    const load = await runLoad({ port: app.port, paths, connections, durationMs: Number(args['memory-seconds']) * 1000 })
    clearInterval(sampling)
    await new Promise((r) => setTimeout(r, 200))
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`
    const maxCache = Math.max(...samples.map((s) => s.cacheBytes))
    const third = samples[Math.floor(samples.length / 3)]
    const last = samples[samples.length - 1]
    const js = (x: Stats) => x.heapUsed + x.arrayBuffers
    const growth = js(last) - js(third)
    console.log(
      `memory (${memoryDatabase.name}): MEDIA_CACHE_MB=${MEMORY_CACHE_MB}, ${app.ids.length} images (${mb(app.bytes)}), ${load.requests} reads ` +
        `(${load.perSecond.toFixed(0)} req/s); cache at most ${mb(maxCache)} of ${mb(last.cacheMaxBytes)}; ` +
        `heap + buffers ${samples.map((x) => (js(x) / 1024 / 1024).toFixed(0)).join(' ')} MiB; RSS ${samples.map((x) => (x.rss / 1024 / 1024).toFixed(0)).join(' ')} MiB`,
    )
    targets.push({
      name: `media cache bounded (4x its size in distinct images, ${memoryDatabase.name})`,
      measured: `cache max ${mb(maxCache)} <= ${mb(last.cacheMaxBytes)}; heap + buffers ${mb(js(third))} -> ${mb(js(last))} over the last two thirds (RSS ${mb(third.rss)} -> ${mb(last.rss)})`,
      pass: maxCache <= last.cacheMaxBytes && growth < 16 * 1024 * 1024,
    })
  } finally {
    await app.stop()
    await rm(mediaDir, { recursive: true, force: true })
  }
}

console.log('\n| target | measured | result |\n|---|---|---|')
for (const t of targets) console.log(`| ${t.name} | ${t.measured} | ${t.pass === null ? 'SKIPPED' : t.pass ? 'PASS' : 'FAIL'} |`)
for (const i of informative) console.log(`| ${i.name} | ${i.measured} | (no target) |`)

/**
 * Start-up and paging at scale on PostgreSQL, with the production server (dist/, started as `pnpm serve` starts
 * it) in its own process; build it first (`pnpm --filter @app/meme-catalog build`):
 *   node --import tsx services/meme-catalog/bench/startup.ts [--documents 1000000] [--seconds 5]
 *     [--server postgres://postgres@127.0.0.1:5432/postgres]
 * 1. corpus: a fresh database, the corpus generated as it streams and bulk-loaded (COPY) through the write side;
 * 2. start-up: process spawn to the first 200 of GET /api/memes?q=, RSS of the server sampled every 50 ms;
 * 3. paging: page 1 against page 40,000 (pageSize 24) over HTTP in alternating rounds: p50, p99, server CPU/request;
 * 4. the same start on an empty database, for the RAM an instance needs per 100,000 memes.
 * --keep leaves the loaded database in place (its URL is printed); --database <url> reuses it without loading.
 * Prints PASS/FAIL per target and replaces its section of bench/RESULTS.md (at 1,000,000 memes).
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { migrate, openDatabase } from '@app/common'
import Fastify from 'fastify'
import { createMemeUseCases } from '../src/memes/use-cases.ts'
import { type CatalogProcess, cpuMs, startCatalog } from './catalog-process.ts'
import { corpusMeme, inBatches, streamCorpus } from './corpus.ts'
import { runLoad } from './load.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.dirname(here)
const { values: args } = parseArgs({
  options: {
    documents: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '5' },
    server: { type: 'string', default: process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    /** A database this bench loaded and kept before (--keep): start-up and paging only, no corpus load. */
    database: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
})
const documents = Number(args.documents)
const seconds = Number(args.seconds)
const PAGE_SIZE = 24
const deepPage = Math.min(40_000, Math.ceil(documents / PAGE_SIZE))

const TARGETS = {
  /** "a few minutes" for 1,000,000 memes, read as at most three. */
  loadMs: 180_000,
  startupMs: 30_000,
  /** Deep page within 2x of page 1. */
  pagingRatio: 2,
}

const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const rssOf = (pid: number) => {
  try {
    return 1024 * Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
  } catch {
    return 0
  }
}

function freshDatabase(): string {
  return execFileSync(process.execPath, [path.join(root, '../../scripts/fresh-database.mjs'), args.server as string], {
    encoding: 'utf8',
  }).trim()
}

async function dropDatabase(url: string) {
  const server = await openDatabase({ url: args.server, dataDir: '' })
  // The name comes from scripts/fresh-database.mjs (ci_ and base-36 digits).
  await server.exec(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`)
  await server.close()
}

/** CPU time (ms) of the server's backends serving database `name` (their process titles name it), from /proc. */
function backendCpuMs(name: string): number {
  let total = 0
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${name} `)) continue
      total += cpuMs(Number(pid))
    } catch {
      // The process ended meanwhile.
    }
  }
  return total
}

/** Generates and stores the corpus as it streams (20,000 a COPY batch); returns load and ANALYZE times. */
async function loadCorpus(url: string, count: number) {
  const db = await openDatabase({ url, dataDir: '' })
  try {
    await migrate(db, path.join(root, 'migrations'))
    // No server runs on this fresh database yet: nobody to tell; the server builds its read model on start.
    const useCases = createMemeUseCases(
      db,
      { memeChanged: async () => {}, catalogChanged: async () => {}, aliasesChanged: async () => {} },
      Fastify().log,
    )
    const name = new URL(url).pathname.slice(1)
    // The pool's connections stay open until close: their CPU is read before.
    await db.query('SELECT 1')
    const backendBefore = backendCpuMs(name)
    const started = performance.now()
    const cpuBefore = process.cpuUsage()
    const stored = await useCases.bulkLoad(
      inBatches(mapIterable(streamCorpus({ documents: count }).documents, corpusMeme), 20_000),
    )
    const copyMs = performance.now() - started
    const cpu = process.cpuUsage(cpuBefore)
    const loaderCpuMs = (cpu.user + cpu.system) / 1000
    const databaseCpuMs = backendCpuMs(name) - backendBefore
    // Planner statistics and the visibility map, as autovacuum would leave them after an import.
    const vacuumStarted = performance.now()
    await db.exec('VACUUM ANALYZE memes, meme_tags, tags')
    return { stored, copyMs, loaderCpuMs, databaseCpuMs, vacuumMs: performance.now() - vacuumStarted }
  } finally {
    await db.close()
  }
}

function* mapIterable<T, U>(items: Iterable<T>, map: (item: T) => U): Generator<U> {
  for (const item of items) yield map(item)
}

/** Spawns the server and waits for the first answered search; RSS sampled meanwhile and for `settleMs` after. */
async function startUp(url: string, query: string, settleMs: number) {
  const samples: { at: number; rss: number }[] = []
  const started = performance.now()
  // The production process (dist/, the flags of pnpm serve): what a deployment starts.
  const catalog = await startCatalog(
    { DATABASE_URL: url, DEMO_MEMES: 'false', READ_RATE_LIMIT: '1000000000' },
    { compiled: true },
  )
  const pid = catalog.server.pid as number
  const sampler = setInterval(() => samples.push({ at: performance.now() - started, rss: rssOf(pid) }), 50)
  let listeningMs = 0
  let firstSearchMs = 0
  let status = 0
  while (firstSearchMs === 0) {
    if (performance.now() - started > 600_000) throw new Error(`no search answered within 600 s (last status ${status})`)
    try {
      // Listening is the first health answer: a search waits up to 5 s for the model before it answers 503.
      if (listeningMs === 0) {
        const health = await fetch(`${catalog.base}/api/health`)
        await health.arrayBuffer()
        listeningMs = performance.now() - started
      }
      const res = await fetch(`${catalog.base}/api/memes?q=${encodeURIComponent(query)}`)
      status = res.status
      await res.arrayBuffer()
      if (res.ok) firstSearchMs = performance.now() - started
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const cpuAtFirstSearch = cpuMs(pid)
  // The first listings read the orders the load left (newest first, trending): what the first visitor waits for.
  const firstListingMs: Record<string, number> = {}
  for (const listing of ['/api/memes', '/api/memes/trending']) {
    const asked = performance.now()
    await (await fetch(`${catalog.base}${listing}`)).arrayBuffer()
    firstListingMs[listing] = performance.now() - asked
  }
  await new Promise((resolve) => setTimeout(resolve, settleMs))
  clearInterval(sampler)
  const peakRss = Math.max(...samples.map((x) => x.rss))
  const settledRss = samples.at(-1)?.rss ?? 0
  return { catalog, listeningMs, firstSearchMs, cpuAtFirstSearch, firstListingMs, peakRss, settledRss, samples }
}

/** Alternating rounds of page 1 and the deep page: the same machine state for both. */
async function paging(catalog: CatalogProcess) {
  const pid = catalog.server.pid as number
  const pathOf = (page: number) => `/api/memes?page=${page}&pageSize=${PAGE_SIZE}`
  const totals = new Map<number, { requests: number; cpu: number; p50: number[]; p99: number[]; non200: number }>()
  // The first deep request pays for what a cold page pays once (its records' JSON): warm both before counting.
  for (const page of [1, deepPage]) await (await fetch(`${catalog.base}${pathOf(page)}`)).arrayBuffer()
  for (let round = 0; round < 3; round++) {
    for (const page of [1, deepPage]) {
      const cpuBefore = cpuMs(pid)
      const result = await runLoad({
        port: catalog.port,
        paths: [pathOf(page)],
        connections: 8,
        durationMs: seconds * 1000,
        warmupMs: 500,
      })
      const cpu = cpuMs(pid) - cpuBefore
      const entry = totals.get(page) ?? { requests: 0, cpu: 0, p50: [], p99: [], non200: 0 }
      entry.requests += result.requests
      entry.cpu += cpu
      entry.p50.push(result.p50)
      entry.p99.push(result.p99)
      entry.non200 += result.non200 + result.errors
      totals.set(page, entry)
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const summary = (page: number) => {
    const e = totals.get(page) as NonNullable<ReturnType<typeof totals.get>>
    // CPU includes the warm-up share of each round: a small overestimate, equal for both pages.
    return {
      page,
      p50: median(e.p50),
      p99: median(e.p99),
      cpuPerRequest: e.cpu / e.requests,
      requests: e.requests,
      failed: e.non200,
    }
  }
  return { first: summary(1), deep: summary(deepPage) }
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')

const lines: string[] = []
const print = (line = '') => {
  lines.push(line)
  console.log(line)
}

const loadAtStart = loadAverage()
const corpusUrl = args.database ?? freshDatabase()
const emptyUrl = freshDatabase()
const { words } = streamCorpus({ documents: 0 })
// A common word of the vocabulary: the first search has real work and many matches.
const query = words[3]
try {
  console.error(`loading ${documents} memes into ${corpusUrl} ...`)
  const load = args.database
    ? { stored: documents, copyMs: Number.NaN, loaderCpuMs: Number.NaN, databaseCpuMs: Number.NaN, vacuumMs: Number.NaN }
    : await loadCorpus(corpusUrl, documents)
  console.error(`stored ${load.stored} in ${s(load.copyMs)} (+ VACUUM ANALYZE ${s(load.vacuumMs)}); starting the server ...`)

  const empty = await startUp(emptyUrl, query, 3000)
  await empty.catalog.stop()
  const full = await startUp(corpusUrl, query, 5000)
  console.error(`first search after ${s(full.firstSearchMs)}; paging ...`)
  const pages = await paging(full.catalog)
  const rssAfterPaging = rssOf(full.catalog.server.pid as number)
  await full.catalog.stop()

  const perHundredK = ((full.settledRss - empty.settledRss) / documents) * 100_000
  const loadMs = load.copyMs + load.vacuumMs
  const ratio = (a: number, b: number) => a / b
  const p50Ratio = ratio(pages.deep.p50, pages.first.p50)
  const p99Ratio = ratio(pages.deep.p99, pages.first.p99)
  const cpuRatio = ratio(pages.deep.cpuPerRequest, pages.first.cpuPerRequest)
  // A smaller trial run gets the same rate as target.
  const loadTarget = TARGETS.loadMs * (documents / 1_000_000)
  const startupTarget = TARGETS.startupMs

  print('## Start-up and paging at scale (`bench/startup.ts`)')
  print()
  print(
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores, Node ${process.version}, PostgreSQL at ${new URL(args.server as string).host}, ` +
      `load average ${loadAtStart} at start, ${loadAverage()} at end. Corpus: ${documents} memes (bench/corpus.ts), ` +
      `the production server process (\`dist/server.js\` with the flags of \`pnpm serve\`) on a fresh database.`,
  )
  print()
  print('| step | measured |')
  print('|---|---|')
  print(
    `| corpus: generate + COPY through memeUseCases.bulkLoad (wall) | ${s(load.copyMs)} (${Math.round(load.stored / (load.copyMs / 1000))} memes/s; CPU: loader ${s(load.loaderCpuMs)}, PostgreSQL backend ${s(load.databaseCpuMs)}) |`,
  )
  print(`| corpus: VACUUM ANALYZE after the load | ${s(load.vacuumMs)} |`)
  print(`| start-up: spawn to the first \`GET /api/health\` answer (empty database) | ${s(empty.listeningMs)} |`)
  print(`| start-up: spawn to the first \`GET /api/health\` answer | ${s(full.listeningMs)} |`)
  print(
    `| start-up: spawn to first answered \`GET /api/memes?q=${query}\` | ${s(full.firstSearchMs)} (server CPU ${s(full.cpuAtFirstSearch)}) |`,
  )
  for (const [listing, ms] of Object.entries(full.firstListingMs)) {
    print(`| first \`GET ${listing}\` after that search (page 1) | ${ms.toFixed(0)} ms |`)
  }
  print(`| RSS: peak while loading | ${mb(full.peakRss)} |`)
  print(`| RSS: ${5} s after the first search | ${mb(full.settledRss)} (empty catalog: ${mb(empty.settledRss)}) |`)
  print(`| RSS: after the paging runs (page JSON cached) | ${mb(rssAfterPaging)} |`)
  print(`| RAM per 100,000 memes (settled RSS above the empty catalog's) | ${mb(perHundredK)} |`)
  print()
  print(`| GET /api/memes, pageSize ${PAGE_SIZE}, no q | p50 | p99 | server CPU / request | requests | failed |`)
  print('|---|---|---|---|---|---|')
  for (const row of [pages.first, pages.deep]) {
    print(
      `| page ${row.page} | ${row.p50.toFixed(2)} ms | ${row.p99.toFixed(2)} ms | ${(row.cpuPerRequest * 1000).toFixed(0)} µs | ${row.requests} | ${row.failed} |`,
    )
  }
  print()
  print('| target | measured | result |')
  print('|---|---|---|')
  if (!args.database) {
    print(`| corpus load (COPY + VACUUM ANALYZE) < ${s(loadTarget)} | ${s(loadMs)} | ${verdict(loadMs < loadTarget)} |`)
  }
  print(
    `| spawn to first search < ${s(startupTarget)} | ${s(full.firstSearchMs)} | ${verdict(full.firstSearchMs < startupTarget)} |`,
  )
  print(
    `| page ${deepPage} within ${TARGETS.pagingRatio}x of page 1: p50 / p99 / CPU | ${p50Ratio.toFixed(2)}x / ${p99Ratio.toFixed(2)}x / ${cpuRatio.toFixed(2)}x | ${verdict(
      Math.max(p50Ratio, p99Ratio, cpuRatio) <= TARGETS.pagingRatio && pages.deep.failed === 0 && pages.first.failed === 0,
    )} |`,
  )
  print()
  print('RSS while loading, sampled (seconds after spawn: MB):')
  const step = Math.max(1, Math.floor(full.samples.length / 16))
  print(
    full.samples
      .filter((_, i) => i % step === 0)
      .map((x) => `${(x.at / 1000).toFixed(1)}: ${Math.round(x.rss / 1e6)}`)
      .join(', '),
  )
} finally {
  if (!args.keep && !args.database) {
    await dropDatabase(corpusUrl).catch((error) => console.error(`could not drop ${corpusUrl}: ${error.message}`))
  }
  await dropDatabase(emptyUrl).catch(() => {})
}

if (documents === 1_000_000 && !args.database) {
  const file = path.join(here, 'RESULTS.md')
  const current = await readFile(file, 'utf8')
  const heading = '## Start-up and paging at scale'
  const at = current.indexOf(heading)
  const section = `${lines.join('\n')}\n`
  let next: string
  if (at < 0) next = `${current.trimEnd()}\n\n${section}`
  else {
    const end = current.indexOf('\n## ', at + heading.length)
    next = current.slice(0, at) + section + (end < 0 ? '' : `\n${current.slice(end + 1)}`)
  }
  await writeFile(file, next)
}

/**
 * Memory of a service process for the benches: resident memory of its whole process tree (workers and
 * child processes included), and its V8 heap, read through a reporter loaded into the service with
 * `--import` (see heap-reporter.mjs) that answers over the IPC channel.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const heapReporter = fileURLToPath(new URL('./heap-reporter.mjs', import.meta.url))

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`))
    return match ? Number(match[1]) : 0
  } catch {
    return 0 // the process exited between the listing and the read
  }
}

/** The process and its descendants (children of children included), from /proc. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      // The parent pid is the second field after the parenthesised command name.
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
    } catch {}
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []))
  return tree
}

/** Resident memory of the process tree in MiB. */
export function treeRssMiB(root: number): number {
  return processTree(root).reduce((sum, pid) => sum + statusKb(pid, 'VmRSS'), 0) / 1024
}

export interface MemorySampler {
  /** Every sample (MiB of the tree), in order. */
  readonly samples: number[]
  /** Highest tree RSS seen (MiB). */
  peak(): number
  /** Samples taken from now on are returned by the mark's `since()`. */
  mark(): { since(): number[] }
  stop(): void
}

/** Samples the tree's RSS every `intervalMs` (a short interval catches short peaks). */
export function sampleMemory(root: number, intervalMs = 200): MemorySampler {
  const samples: number[] = []
  const take = () => {
    const value = treeRssMiB(root)
    if (value > 0) samples.push(value)
  }
  take()
  const timer = setInterval(take, intervalMs)
  return {
    samples,
    peak: () => Math.max(...samples),
    mark() {
      const start = samples.length
      return { since: () => samples.slice(start) }
    },
    stop: () => clearInterval(timer),
  }
}

export interface HeapReport {
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
}

/** The service's process.memoryUsage() in MiB, after a full garbage collection when `gc` is set. */
export function heapOf(child: ChildProcess, gc = true): Promise<HeapReport> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the heap reporter did not answer')), 30_000)
    child.once('message', (message) => {
      clearTimeout(timer)
      resolve(message as HeapReport)
    })
    child.send({ heap: true, gc })
  })
}

/** Starts `node [--import reporter] script` with an IPC channel, stdout ignored, stderr inherited. */
export function spawnWithReporter(script: string, options: { cwd: string; env: NodeJS.ProcessEnv; nodeArgs?: string[] }) {
  return spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', heapReporter, script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** Least-squares slope of `ys` against `xs`. */
export function slope(xs: number[], ys: number[]): number {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - mx) * ((ys[i] as number) - my)
    den += ((xs[i] as number) - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

export interface LeakCheckpoint {
  requests: number
  rss: number
  heapUsed: number
}

export interface LeakVerdict {
  /** Growth over the whole run predicted by the slope (MiB), after the warm-up checkpoint. */
  heapGrowth: number
  rssGrowth: number
  ok: boolean
}

/**
 * Flat when the least-squares lines through the checkpoints (the first, the warm-up, left out) rise by
 * less than `heapToleranceMiB` of heap after GC and `rssToleranceMiB` of tree RSS across the run.
 */
export function leakVerdict(points: LeakCheckpoint[], heapToleranceMiB: number, rssToleranceMiB: number): LeakVerdict {
  const kept = points.slice(1)
  const xs = kept.map((p) => p.requests)
  const span = (xs[xs.length - 1] as number) - (xs[0] as number)
  const heapGrowth =
    slope(
      xs,
      kept.map((p) => p.heapUsed),
    ) * span
  const rssGrowth =
    slope(
      xs,
      kept.map((p) => p.rss),
    ) * span
  return { heapGrowth, rssGrowth, ok: heapGrowth < heapToleranceMiB && rssGrowth < rssToleranceMiB }
}

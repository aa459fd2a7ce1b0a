import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from './network.ts'

/** Debian's package `prometheus` (PROMETHEUS_PATH names another build). */
export const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus'

/** Why the real-Prometheus tests cannot run here, or null when they can. */
export function prometheusUnavailable(): string | null {
  return existsSync(PROMETHEUS) ? null : `${PROMETHEUS} not installed (apt-get install prometheus)`
}

/** One sample of the text exposition format. */
export interface ExpositionSample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of a /metrics answer (comments and blank lines skipped); throws on a line that is neither. */
export function parseExposition(text: string): ExpositionSample[] {
  const samples: ExpositionSample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = SAMPLE_LINE.exec(line)
    if (!match) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name] = value.replace(/\\(.)/g, '$1')
    samples.push({ name: match[1], labels, value: Number(match[3]) })
  }
  return samples
}

/** The value of the sample with this name whose labels include `labels`; undefined when there is none. */
export function sampleValue(samples: ExpositionSample[], name: string, labels: Record<string, string> = {}) {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value
}

export interface PrometheusServer {
  url: string
  /** An instant query through Prometheus' HTTP API: the result vector. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>
  /** The scrape targets' state (health, lastError) from /api/v1/targets. */
  targets(): Promise<{ health: string; lastError: string; scrapeUrl: string }[]>
  /** The tail of Prometheus' own log, for diagnosing failures. */
  log(): string
  stop(): Promise<void>
}

export interface PrometheusOptions {
  /** Where to scrape, e.g. http://127.0.0.1:8081/metrics. */
  target: string
  /** Sent as `Authorization: Bearer <token>`, read from a file (mode 0600) as an operator would keep it. */
  bearerToken?: string
  scrapeIntervalSeconds?: number
}

const LOG_TAIL = 64 * 1024

/**
 * A real Prometheus on 127.0.0.1 (a free port) with a temporary storage folder and one scrape job for `target`.
 * Callers skip when prometheusUnavailable(); stop() kills the process (by its PID) and removes the folder.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'prometheus-'))
  const target = new URL(options.target)
  const interval = `${options.scrapeIntervalSeconds ?? 1}s`
  const auth: string[] = []
  if (options.bearerToken !== undefined) {
    const tokenFile = path.join(dir, 'metrics-token')
    await writeFile(tokenFile, options.bearerToken)
    await chmod(tokenFile, 0o600)
    auth.push('    authorization:', '      type: Bearer', `      credentials_file: ${JSON.stringify(tokenFile)}`)
  }
  const config = [
    'global:',
    `  scrape_interval: ${interval}`,
    `  scrape_timeout: ${interval}`,
    'scrape_configs:',
    '  - job_name: node-dashboard',
    `    scheme: ${target.protocol.replace(':', '')}`,
    `    metrics_path: ${JSON.stringify(target.pathname)}`,
    ...auth,
    '    static_configs:',
    `      - targets: [${JSON.stringify(target.host)}]`,
    '',
  ].join('\n')
  const configFile = path.join(dir, 'prometheus.yml')
  await writeFile(configFile, config)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  let log = ''
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-LOG_TAIL)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  async function stop() {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killed = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)])
      if (!killed) {
        child.kill('SIGKILL')
        await exited
      }
    }
    await rm(dir, { recursive: true, force: true })
  }

  async function api<T>(pathAndQuery: string): Promise<T> {
    const res = await fetch(`${url}${pathAndQuery}`, { signal: AbortSignal.timeout(5000) })
    const body = (await res.json()) as { status: string; data: T; error?: string }
    if (body.status !== 'success') throw new Error(`Prometheus ${pathAndQuery}: ${body.error ?? res.status}`)
    return body.data
  }

  // Ready once its HTTP API answers (it replays an empty write-ahead log first).
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) {
      await stop()
      throw new Error(`prometheus exited with code ${child.exitCode}:\n${log}`)
    }
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.ok,
      () => false,
    )
    if (ready) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`prometheus did not become ready:\n${log}`)
    }
    await sleep(100)
  }

  return {
    url,
    query: (expr) => api(`/api/v1/query?query=${encodeURIComponent(expr)}`).then((d) => (d as { result: never[] }).result),
    targets: () =>
      api<{ activeTargets: { health: string; lastError: string; scrapeUrl: string }[] }>('/api/v1/targets').then(
        (d) => d.activeTargets,
      ),
    log: () => log,
    stop,
  }
}

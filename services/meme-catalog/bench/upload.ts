// Upload pipeline benchmark: end-to-end uploads of a 1920x1080 PNG over HTTP against the irreducible
// work (decode + WebP encode + one classification) in the same run, and read latency while uploads run.
// Run: node --import tsx services/meme-catalog/bench/upload.ts [iterations]  (DATABASE_URL for PostgreSQL)
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Writable } from 'node:stream'
import { loadConfig } from '@app/common'
import { createTestDatabase } from '@app/testing'
import sharp from 'sharp'
import { buildApp } from '../src/app.ts'
import { configSchema } from '../src/config.ts'
import { classifierPixels, decode, toWebp } from '../src/images/process.ts'
import { createClassifier } from '../src/moderation/classifier.ts'

const iterations = Number(process.argv[2] ?? 30)
const BOUNDARY = '----bench-boundary-e2e'

/** A 1920x1080 meme-like PNG (gradient, shapes, caption bar); the seed makes every file distinct. */
async function memePng(seed: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="hsl(${(seed * 37) % 360},70%,60%)"/><stop offset="1" stop-color="hsl(${(seed * 37 + 120) % 360},60%,30%)"/>
    </linearGradient></defs>
    <rect width="1920" height="1080" fill="url(#g)"/>
    ${Array.from({ length: 40 }, (_, i) => `<circle cx="${(i * 173 + seed * 31) % 1920}" cy="${(i * 97 + seed * 17) % 1080}" r="${20 + ((i * seed) % 90)}" fill="hsl(${(i * 29 + seed) % 360},80%,50%)" fill-opacity="0.6"/>`).join('')}
    <rect x="0" y="880" width="1920" height="200" fill="#000" fill-opacity="0.5"/>
    <text x="960" y="1010" font-size="110" font-family="sans-serif" font-weight="bold" fill="#fff" stroke="#000" stroke-width="5" text-anchor="middle">BENCHMARK MEME ${seed}</text>
  </svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

function body(bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="meme"; filename="bench.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ])
}

function request(port: number, method: string, path: string, payload?: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: payload ? { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': payload.length } : {},
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
function summary(name: string, samples: number[], wallMs: number) {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    name,
    n: samples.length,
    perSecond: +((samples.length * 1000) / wallMs).toFixed(2),
    p50: +quantile(sorted, 0.5).toFixed(1),
    p99: +quantile(sorted, 0.99).toFixed(1),
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

const images = await Promise.all(Array.from({ length: iterations * 3 + 2 }, (_, i) => memePng(i + 1)))
console.log(
  `${iterations} iterations; PNG sizes ${Math.min(...images.map((b) => b.length))}..${Math.max(...images.map((b) => b.length))} bytes`,
)

// The real app on a fresh database, uploads over HTTP.
const database = await createTestDatabase()
const config = loadConfig(configSchema, {
  LOG_LEVEL: 'info',
  DEMO_MEMES: 'false',
  CAPTIONER: 'none',
  DATA_DIR: database.dataDir,
  ...(database.url ? { DATABASE_URL: database.url } : {}),
  UPLOAD_QUOTA_HOUR: '100000',
  UPLOAD_QUOTA_DAY: '100000',
  UPLOAD_QUOTA_GLOBAL_DAY: '100000',
  UPLOAD_RATE_LIMIT: '100000',
  READ_RATE_LIMIT: '1000000',
})
// The pipeline logs its stage timings at info: collect them for the breakdown below.
const stages: Record<string, number[]> = {}
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) {
      if (!line.includes('"upload moderated"')) continue
      const { timings } = JSON.parse(line) as { timings: Record<string, number> }
      for (const [stage, ms] of Object.entries(timings)) {
        stages[stage] ??= []
        stages[stage].push(ms)
      }
    }
    done()
  },
})
const server = buildApp(config, { log: { stream: logStream } })
await server.listen({ host: '127.0.0.1', port: 0 })
const { port } = server.server.address() as AddressInfo
await server.moderation.classifier.ready()
if ((await request(port, 'POST', '/api/memes', body(images[0]))) >= 300) throw new Error('warm-up upload failed')
// Baseline: one decode, WebP encode and one classification (side by side, as the pipeline does), nothing else.
const classifier = createClassifier({ log: { info: () => {}, error: console.error } })
await classifier.ready()
await classifier.classify(await classifierPixels(await decode(images[0])))
const baseline = async (png: Buffer) => {
  const image = await decode(png)
  await Promise.all([toWebp(image), classifierPixels(image).then((px) => classifier.classify(px))])
}
const upload = async (png: Buffer) => {
  const status = await request(port, 'POST', '/api/memes', body(png))
  if (status !== 201 && status !== 202) throw new Error(`upload answered ${status}`)
}

// Interleaved, so both see the same machine load (the box is shared).
const baselineSamples: number[] = []
const uploadSamples: number[] = []
let baselineWall = 0
let uploadWall = 0
for (let i = 0; i < iterations; i++) {
  const b = await timed(() => baseline(images[2 * i + 1]))
  baselineSamples.push(b)
  baselineWall += b
  const u = await timed(() => upload(images[2 * i + 2]))
  uploadSamples.push(u)
  uploadWall += u
}
await classifier.close()
const baselineSummary = summary('baseline: decode + WebP + classify', baselineSamples, baselineWall)
const pipeline = summary('end to end: POST /api/memes', uploadSamples, uploadWall)
let wall: number

// Reads: idle, then while two upload streams keep the pipeline busy.
const readPath = server.hasRoute({ method: 'GET', url: '/api/memes' }) ? '/api/memes' : '/api/health'
const readSamples = async (count: number) => {
  const samples: number[] = []
  for (let i = 0; i < count; i++) samples.push(await timed(() => request(port, 'GET', readPath)))
  return samples
}
const readCount = iterations * 5
// How long the server's event loop is held, idle and while uploads run (classification lives in a worker thread).
const idleDelay = monitorEventLoopDelay({ resolution: 5 })
idleDelay.enable()
wall = performance.now()
const idle = summary(`GET ${readPath} idle`, await readSamples(readCount), performance.now() - wall)
idleDelay.disable()
let next = 2 * iterations + 1
let busy = true
const uploader = async () => {
  while (busy && next < images.length) await request(port, 'POST', '/api/memes', body(images[next++]))
}
const uploaders = [uploader(), uploader()]
const loopDelay = monitorEventLoopDelay({ resolution: 5 })
loopDelay.enable()
wall = performance.now()
const loaded = summary(`GET ${readPath} during uploads`, await readSamples(readCount), performance.now() - wall)
loopDelay.disable()
busy = false
await Promise.all(uploaders)
await server.close()
await database.cleanup()

console.table([baselineSummary, pipeline, idle, loaded])
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log('pipeline stage medians (ms):', Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, median(v)])))
const ratio = pipeline.p50 / baselineSummary.p50
console.log(`pipeline p50 / baseline p50 = ${ratio.toFixed(2)} (target <= 1.3): ${ratio <= 1.3 ? 'met' : 'NOT met'}`)
console.log(`read p50 during uploads / idle = ${(loaded.p50 / idle.p50).toFixed(2)}; p99 ${idle.p99} -> ${loaded.p99} ms`)
const ms = (ns: number) => (ns / 1e6).toFixed(1)
for (const [label, h] of [
  ['idle', idleDelay],
  ['during uploads', loopDelay],
] as const) {
  console.log(`event-loop delay ${label}: p50 ${ms(h.percentile(50))} ms, p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms`)
}

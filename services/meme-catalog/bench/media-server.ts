/**
 * The catalog app (buildApp, as src/server.ts builds it) in a process of its own for bench/media.ts, with `count`
 * approved memes whose WebP images are distinct 16 KB files. Settings come from the environment (DATABASE_URL,
 * MEDIA_CACHE_MB, ...). Usage: node --import tsx bench/media-server.ts <count> <mediaDir>
 * Writes each image to <mediaDir>/<id> (what nginx serves), reports { port, ids, bytes } over IPC once it listens,
 * and answers a 'stats' message with the media cache's size and the process memory after a full GC.
 */
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '@app/common'
import sharp from 'sharp'
import { buildApp } from '../src/app.ts'
import { configSchema } from '../src/config.ts'

const [countArg, mediaDir] = process.argv.slice(2)
const count = Number(countArg)

/** Gaussian noise barely compresses: 170 x 170 px at quality 82 is about 16 KB, like the test image. */
async function noiseWebp(): Promise<Buffer> {
  const noise = { type: 'gaussian' as const, mean: 128, sigma: 40 }
  return sharp({ create: { width: 170, height: 170, channels: 3, background: '#808080', noise } })
    .webp({ quality: 82 })
    .toBuffer()
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'media-bench-'))
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
const config = loadConfig(configSchema, {
  ...env,
  DATA_DIR: dataDir,
  // warn: no request lines; media.ts sets MEDIA_BENCH_LOG_LEVEL=info for the informative run that writes them.
  LOG_LEVEL: env.MEDIA_BENCH_LOG_LEVEL ?? 'warn',
  LOG_FORMAT: 'json',
  DEMO_MEMES: 'false',
  CAPTIONER: 'none',
  CAPTION_CONCURRENCY: '0',
  // Budgets far above what the load sends: the bench measures their bookkeeping, not refusals.
  MEDIA_RATE_LIMIT: '1000000000',
  READ_RATE_LIMIT: '1000000000',
})
const app = buildApp(config)
await app.ready()

const ids: string[] = []
let totalBytes = 0
const memes = []
for (let i = 0; i < count; i++) {
  const webp = await noiseWebp()
  const id = createHash('sha256').update(webp).digest('hex')
  await writeFile(path.join(mediaDir, id), webp)
  ids.push(id)
  totalBytes += webp.length
  memes.push({
    id,
    status: 'approved' as const,
    byteSize: webp.length,
    width: 170,
    height: 170,
    originalMime: 'image/png' as const,
    originalName: `noise-${i}.png`,
    moderationScore: 0,
    moderationReason: 'bench',
    caption: `bench image ${i}`,
    webp,
    tags: [] as string[],
  })
}
await app.memeUseCases.insert(memes)
if (!(await app.readModel.whenReady(60_000))) throw new Error('read model not ready')

await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.send?.({ port: typeof address === 'object' && address ? address.port : 0, ids, bytes: totalBytes })
process.on('message', async (message) => {
  if (message === 'flush') {
    await app.mediaCounters.flush()
    process.send?.({ flushed: true })
  }
  if (message !== 'stats')
    return // After a full collection (the bench starts this process with --expose-gc): what is kept, not where the GC stands.
  ;(globalThis as { gc?: () => void }).gc?.()
  const memory = process.memoryUsage()
  process.send?.({
    cacheBytes: app.mediaCache?.bytes ?? 0,
    cacheEntries: app.mediaCache?.entries ?? 0,
    cacheMaxBytes: app.mediaCache?.maxBytes ?? 0,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    arrayBuffers: memory.arrayBuffers,
  })
})
process.on('disconnect', async () => {
  await app.close().catch(() => {})
  await rm(dataDir, { recursive: true, force: true }).catch(() => {})
  process.exit(0)
})

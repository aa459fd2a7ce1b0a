/**
 * Soak: the real catalog server (its own process, demo data) under mixed reads, searches and media at
 * full speed from 32 keep-alive connections, plus a steady stream of real uploads, for a bounded time.
 * Prints throughput, p50/p99, every non-200 and the server's memory over time; exits 1 on any error
 * or when resident memory keeps growing. `pnpm soak` (SOAK_SECONDS, default 60; DATABASE_URL optional).
 */
import { readFileSync } from 'node:fs'
import { eventually } from '@app/testing'
import sharp from 'sharp'
import { startCatalog } from './catalog-process.ts'
import { runLoad } from './load.ts'

const seconds = Number(process.env.SOAK_SECONDS ?? 60)

function rssMiB(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
  return match ? Number(match[1]) / 1024 : Number.NaN
}

/** A unique PNG per upload (noise), so every upload runs the whole pipeline. */
async function uniquePng(seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(320 * 240 * 3)
  let x = seed * 2654435761
  for (let i = 0; i < pixels.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    pixels[i] = x >>> 24
  }
  return sharp(pixels, { raw: { width: 320, height: 240, channels: 3 } })
    .png()
    .toBuffer()
}

async function upload(base: string, seed: number): Promise<number> {
  const form = new FormData()
  form.append('meme', new Blob([new Uint8Array(await uniquePng(seed))], { type: 'image/png' }), `soak-${seed}.png`)
  const res = await fetch(`${base}/api/memes`, { method: 'POST', body: form })
  await res.arrayBuffer()
  return res.status
}

async function main() {
  const { server, port, base, stop } = await startCatalog({
    // The soak measures the server, not its limits: budgets far above what one client can send.
    READ_RATE_LIMIT: '100000000',
    MEDIA_RATE_LIMIT: '100000000',
    UPLOAD_RATE_LIMIT: '100000',
    UPLOAD_QUOTA_HOUR: '100000',
    UPLOAD_QUOTA_DAY: '100000',
    UPLOAD_QUOTA_GLOBAL_DAY: '100000',
    MODERATION_REVIEW_SCORE: '101',
    MODERATION_REJECT_SCORE: '101',
  })
  try {
    const memes = await eventually(
      async () => {
        const body = (await (await fetch(`${base}/api/memes?pageSize=48`)).json()) as {
          total: number
          memes: { id: string; tags: string[] }[]
        }
        return body.total >= 30 ? body.memes : undefined
      },
      { what: 'demo memes', timeoutMs: 180_000, intervalMs: 500 },
    )
    const tags = [...new Set(memes.flatMap((m) => m.tags))]
    const paths = [
      ...[1, 2, 3].map((page) => `/api/memes?page=${page}`),
      ...['cat', 'dgo', 'deja vu', 'monday cofee', 'pizza', 'smorgasbord', 'jalapeno'].map(
        (q) => `/api/memes?q=${encodeURIComponent(q)}`,
      ),
      ...tags.slice(0, 5).map((tag) => `/api/memes?tag=${encodeURIComponent(tag)}`),
      ...memes.slice(0, 10).map((m) => `/api/memes/${m.id}`),
      ...memes.slice(0, 20).map((m) => `/media/${m.id}`),
      '/api/tags',
    ]
    const memory: number[] = []
    const sampler = setInterval(() => memory.push(rssMiB(server.pid!)), 1000)
    const uploads: Record<number, number> = {}
    let uploading = true
    const uploader = (async () => {
      for (let seed = 1; uploading; seed++) {
        const status = await upload(base, seed).catch(() => 0)
        uploads[status] = (uploads[status] ?? 0) + 1
        await new Promise((r) => setTimeout(r, 200))
      }
    })()
    const load = await runLoad({ port, paths, connections: 32, durationMs: seconds * 1000, warmupMs: 3000 })
    uploading = false
    await uploader
    clearInterval(sampler)

    const third = Math.max(1, Math.floor(memory.length / 3))
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
    const early = avg(memory.slice(third, 2 * third))
    const late = avg(memory.slice(-third))
    const growth = (late - early) / early
    const uploadErrors = Object.entries(uploads)
      .filter(([s]) => s !== '201')
      .reduce((n, [, c]) => n + c, 0)
    console.log(`soak ${seconds} s, ${paths.length} read paths round-robin, 32 connections, uploads every ~200 ms`)
    console.log(
      `reads: ${load.requests} (${load.perSecond.toFixed(0)}/s), p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms, errors ${load.errors}, non-200 ${load.non200}`,
    )
    console.log(`uploads by status: ${JSON.stringify(uploads)}`)
    console.log(
      `server RSS MiB: start ${memory[0]?.toFixed(0)}, middle third ${early.toFixed(0)}, last third ${late.toFixed(0)}, max ${Math.max(...memory).toFixed(0)} (growth ${(growth * 100).toFixed(1)}%)`,
    )
    const ok = load.errors === 0 && load.non200 === 0 && uploadErrors === 0 && growth < 0.15
    console.log(ok ? 'PASS' : 'FAIL')
    process.exitCode = ok ? 0 : 1
  } finally {
    await stop()
  }
}

await main()

/**
 * Media reads: the real catalog server (its own process, demo data, rate limits and view counting on) answering
 * GET /media/{id} round-robin over 20 images from 32 keep-alive connections. Two cases: a full read (200, bytes
 * from the database) and a revalidation (If-None-Match, 304: mostly the rate limiter and the framework). Prints
 * req/s, p50/p99 and the server's CPU time per request (robust on a loaded machine), in process and, when
 * REDIS_URL is set, with the shared Redis limiter. `node --import tsx bench/media.ts [seconds]`.
 */
import { eventually } from '@app/testing'
import { cpuMs, startCatalog } from './catalog-process.ts'
import { runLoad } from './load.ts'

const seconds = Number(process.argv[2] ?? 15)
const redisUrl = process.env.REDIS_URL

for (const redis of redisUrl ? [undefined, redisUrl] : [undefined]) {
  const catalog = await startCatalog({
    // Budgets far above what the load sends: the bench measures their bookkeeping, not refusals.
    READ_RATE_LIMIT: '100000000',
    MEDIA_RATE_LIMIT: '100000000',
    ...(redis ? { REDIS_URL: redis } : {}),
  })
  try {
    const memes = await eventually(
      async () => {
        const body = (await (await fetch(`${catalog.base}/api/memes?pageSize=48`)).json()) as {
          total: number
          memes: { id: string }[]
        }
        return body.total >= 20 ? body.memes : undefined
      },
      { what: 'demo memes', timeoutMs: 180_000, intervalMs: 500 },
    )
    const paths = memes.slice(0, 20).map((m) => `/media/${m.id}`)
    const revalidate = (p: string) => `If-None-Match: "${p.slice('/media/'.length)}"\r\n`
    for (const [name, headers] of [
      ['200', undefined],
      ['304', revalidate],
    ] as const) {
      await runLoad({ port: catalog.port, paths, connections: 32, durationMs: 3000, headers })
      const cpuBefore = cpuMs(catalog.server.pid!)
      const load = await runLoad({ port: catalog.port, paths, connections: 32, durationMs: seconds * 1000, headers })
      const cpu = cpuMs(catalog.server.pid!) - cpuBefore
      console.log(
        `media ${name} ${redis ? 'Redis limiter' : 'in-process limiter'}: ${load.perSecond.toFixed(0)} req/s, ` +
          `p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms, server CPU ${((cpu * 1000) / load.requests).toFixed(0)} µs/req, ` +
          `errors ${load.errors}, other status ${load.non200}`,
      )
    }
  } finally {
    await catalog.stop()
  }
}

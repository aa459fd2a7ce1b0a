/**
 * One benchmark server, run as a child process of bench/search.ts so the load generator and the server do not
 * share an event loop. Usage: node --import tsx bench/server.ts <mode> <documents> [bodyFile]
 *   minisearch  GET /search?q= with one tuned minisearch query per request
 *   engine      GET /search?q= through the engine (same JSON shape)
 *   app         the real catalog app (PGlite) with the corpus loaded: GET /api/memes
 *   static      GET /api/memes answering a precomputed body read from bodyFile
 * Reports { port, ... } to the parent over IPC once it listens.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '@app/common'
import Fastify, { type FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.ts'
import { configSchema } from '../src/config.ts'
import type { MemeUseCases } from '../src/memes/use-cases.ts'
import { createSearchIndex } from '../src/search/engine.ts'
import { type Corpus, generateCorpus } from './corpus.ts'
import { createTunedMiniSearch } from './minisearch-tuned.ts'

const [mode, documentsArg, bodyFile] = process.argv.slice(2)
const corpus = generateCorpus({ documents: Number(documentsArg) })
const report: Record<string, unknown> = {}
let cleanup = async () => {}

async function searchServer(search: (q: string) => { total: number; ids: string[] }): Promise<FastifyInstance> {
  const server = Fastify({ logger: false })
  server.get('/search', async (request) => search(String((request.query as { q?: string }).q ?? '')))
  return server
}

/** Stores the corpus through the write side in one transaction (the tags memes carry join the catalog). */
async function loadCorpus(memes: MemeUseCases, { documents }: Corpus): Promise<void> {
  await memes.insert(
    documents.map((d) => ({
      id: d.id,
      status: 'approved',
      createdAt: new Date(d.createdAt),
      byteSize: 48213,
      width: 800,
      height: 600,
      originalMime: 'image/png',
      originalName: 'meme.png',
      moderationScore: 3,
      moderationReason: 'safe',
      caption: d.caption,
      tags: d.tags,
    })),
  )
}

async function appServer(): Promise<FastifyInstance> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'meme-bench-'))
  cleanup = () => rm(dataDir, { recursive: true, force: true })
  const config = loadConfig(configSchema, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    LOG_FORMAT: 'json',
    DEMO_MEMES: 'false',
    CAPTIONER: 'none',
    CAPTION_CONCURRENCY: '0',
    // The benchmark measures serving, not the per-IP budget (every request comes from 127.0.0.1).
    READ_RATE_LIMIT: '1000000000',
  })
  const server = buildApp(config)
  await server.ready()
  const loadStart = performance.now()
  await loadCorpus(server.memeUseCases, corpus)
  // Fresh planner statistics after the bulk load, as autovacuum would give a server (PGlite runs none); a run
  // without this spent over 15 minutes before the app was ready at 100k memes (the cause was not pinned down).
  await server.db.exec('ANALYZE')
  report.loadMs = performance.now() - loadStart
  console.error(`app: ${corpus.documents.length} memes inserted in ${Math.round(report.loadMs as number)} ms`)
  const syncStart = performance.now()
  await server.readModel.catalogChanged()
  report.readModelMs = performance.now() - syncStart
  report.readModelSize = server.readModel.current?.size
  console.error(`app: read model of ${report.readModelSize} memes built in ${Math.round(report.readModelMs as number)} ms`)
  return server
}

async function main(): Promise<FastifyInstance> {
  const started = performance.now()
  if (mode === 'minisearch') {
    const mini = createTunedMiniSearch(corpus.documents)
    report.buildMs = performance.now() - started
    return searchServer((q) => mini.search(q, 12))
  }
  if (mode === 'engine') {
    const index = createSearchIndex()
    for (const doc of corpus.documents) index.upsert(doc)
    report.buildMs = performance.now() - started
    return searchServer((q) => index.search({ q, offset: 0, limit: 12 }))
  }
  if (mode === 'static') {
    const body = await readFile(bodyFile, 'utf8')
    const server = Fastify({ logger: false })
    server.get('/api/memes', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body))
    return server
  }
  if (mode === 'app') return appServer()
  throw new Error(`unknown mode ${mode}`)
}

const server = await main()
await server.listen({ port: 0, host: '127.0.0.1' })
const address = server.server.address()
process.send?.({ ...report, port: typeof address === 'object' && address ? address.port : 0 })
process.on('disconnect', async () => {
  await server.close().catch(() => {})
  await cleanup().catch(() => {})
  process.exit(0)
})

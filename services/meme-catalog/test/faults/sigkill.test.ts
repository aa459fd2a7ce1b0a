import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase } from '@app/common'
import { freePort } from '@app/testing'
import { startPrivatePostgres, unavailableReason } from '@app/testing/faults'
import { test } from 'tap'
import { BOUNDARY, multipart, pngImage } from '../uploads/fixtures.ts'

const skip = unavailableReason()
if (skip) console.log(`# SKIP database fault tests: ${skip}`)

const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The real server process (src/server.ts), so SIGKILL hits it and nothing else. */
async function startCatalog(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: serviceDir,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const until = Date.now() + 180_000
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`catalog exited with ${child.exitCode}`)
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return child
    await sleep(250)
  }
  child.kill('SIGKILL')
  throw new Error('catalog did not start in 180 s')
}

test('SIGKILL during uploads and a caption job: after restart nothing is lost, duplicated or stuck', { skip }, async (t) => {
  const pg = await startPrivatePostgres()
  t.teardown(() => pg.destroy())
  const dataDir = await mkdtemp(path.join(tmpdir(), 'catalog-kill-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const env = {
    DATABASE_URL: pg.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DEMO_MEMES: 'false',
    CAPTIONER: 'ocr',
    CAPTION_CONCURRENCY: '1',
    // A job killed while running is reclaimed when its lease ends: short here so the test sees it.
    CAPTION_LEASE_SECONDS: '3',
    CAPTION_RETRY_BASE_MS: '200',
    CAPTION_POLL_MS: '500',
    UPLOAD_RATE_LIMIT: '1000',
    UPLOAD_QUOTA_HOUR: '1000',
    UPLOAD_QUOTA_DAY: '1000',
  }
  const port = await freePort()
  let child = await startCatalog(env, port)
  t.teardown(() => child.kill('SIGKILL'))

  const images = await Promise.all(Array.from({ length: 14 }, (_, i) => pngImage(9000 + i, 320, 200)))
  const accepted: string[] = []
  const send = (image: Buffer, name: string) =>
    fetch(`http://127.0.0.1:${port}/api/memes`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: new Uint8Array(multipart([{ name: 'meme', filename: name, contentType: 'image/png', data: image }])),
    })
  // A backlog first: OCR runs one job at a time, so caption jobs are queued or running at the kill.
  for (const [i, image] of images.splice(0, 4).entries()) {
    const res = await send(image, `b${i}.png`)
    t.equal(res.status, 201, 'backlog upload accepted')
    accepted.push(((await res.json()) as { meme: { id: string } }).meme.id)
  }
  let firstDone: () => void = () => {}
  const first = new Promise<void>((resolve) => {
    firstDone = resolve
  })
  const uploads = images.map(async (image, i) => {
    await sleep(i * 30)
    try {
      const res = await send(image, `k${i}.png`)
      if (res.status === 201 || res.status === 202) accepted.push(((await res.json()) as { meme: { id: string } }).meme.id)
      firstDone()
      return res.status
    } catch {
      return 'killed'
    }
  })
  // Kill as soon as one upload is through: others are in flight and its caption job is starting.
  await first
  await sleep(50)
  child.kill('SIGKILL')
  const outcomes = await Promise.all(uploads)
  t.comment(`outcomes: ${outcomes.join(', ')}`)
  t.ok(outcomes.includes('killed'), 'some uploads were cut off by the kill')
  t.ok(accepted.length > 0, `${accepted.length} uploads were accepted before the kill`)

  const db = await openDatabase({ url: pg.url, dataDir })
  t.teardown(() => db.close())
  const openAtKill = await db.query<{ state: string }>("SELECT state FROM caption_jobs WHERE state IN ('queued', 'running')")
  t.comment(`caption jobs open at the kill: ${openAtKill.rows.map((r) => r.state).join(', ')}`)
  t.ok(openAtKill.rowCount > 0, 'caption jobs were pending when the process died')
  child = await startCatalog(env, port)
  const memes = (await db.query<{ id: string; status: string }>('SELECT id, status FROM memes')).rows
  const media = (await db.query<{ meme_id: string }>('SELECT meme_id FROM meme_media')).rows
  t.same(
    accepted.filter((id) => !memes.some((m) => m.id === id)),
    [],
    'every accepted upload is stored',
  )
  t.same(media.map((m) => m.meme_id).sort(), memes.map((m) => m.id).sort(), 'no meme without media, no orphan media')
  for (const id of accepted) {
    const res = await fetch(`http://127.0.0.1:${port}/media/${id}`)
    t.equal(res.status, 200, `media of ${id.slice(0, 8)} is served after the restart`)
  }
  // Caption jobs: exactly one per stored meme, and the restarted worker finishes the interrupted ones.
  const perMeme = (
    await db.query<{ meme_id: string; n: number }>('SELECT meme_id, count(*) AS n FROM caption_jobs GROUP BY meme_id')
  ).rows
  t.same(
    perMeme.filter((r) => r.n !== 1),
    [],
    'no caption job duplicated',
  )
  t.equal(perMeme.length, memes.length, 'every stored meme has its caption job')
  const until = Date.now() + 120_000
  let open = Number.POSITIVE_INFINITY
  while (open > 0 && Date.now() < until) {
    open = (await db.query<{ n: number }>("SELECT count(*) AS n FROM caption_jobs WHERE state IN ('queued', 'running')")).rows[0]
      ?.n as number
    if (open > 0) await sleep(500)
  }
  const states = (await db.query<{ state: string; n: number }>('SELECT state, count(*) AS n FROM caption_jobs GROUP BY state'))
    .rows
  t.comment(`caption jobs after restart: ${JSON.stringify(states)}`)
  t.equal(open, 0, 'every pending caption job resumed and finished after the restart')
})

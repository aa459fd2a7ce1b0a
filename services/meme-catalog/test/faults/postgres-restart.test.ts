import { setTimeout as sleep } from 'node:timers/promises'
import {
  postgresOutage,
  slowest,
  startPrivatePostgres,
  startTraffic,
  type TrafficAnswer,
  tally,
  unavailableReason,
  undocumentedTraffic,
} from '@app/testing/faults'
import { test } from 'tap'
import { FUZZ_ENV } from '../fuzz/support.ts'
import { build } from '../helper.ts'
import { pngImage, uploadRequest } from '../uploads/fixtures.ts'

const skip = unavailableReason()
if (skip) console.log(`# SKIP database fault tests: ${skip}`)

test('PostgreSQL stopped and restarted under traffic: fast 503s, recovery without restart, no upload lost', {
  skip,
}, async (t) => {
  const pg = await startPrivatePostgres()
  t.teardown(() => pg.destroy())
  const env = { ...FUZZ_ENV, DATABASE_URL: pg.url }
  const a = await build(t, { env })
  const b = await build(t, { env })
  const images = await Promise.all(Array.from({ length: 60 }, (_, i) => pngImage(5000 + i, 96, 64)))
  let next = 0
  let lastId: string | undefined
  const uploadedId = (x: TrafficAnswer) =>
    x.kind === 'upload' && (x.status === 201 || x.status === 202) ? (JSON.parse(x.body).meme.id as string) : undefined

  // One client that uploads and reads in turn, the way a browser session would, until told to stop.
  const traffic = startTraffic(a, async (call) => {
    const image = images[next++ % images.length] as Buffer
    lastId = uploadedId(await call('upload', uploadRequest(image, { filename: `m${next}.png` }))) ?? lastId
    await call('list', { url: '/api/memes?pageSize=48' })
    await call('search', { url: '/api/memes?q=meme' })
    await call('tags', { url: '/api/tags' })
    await call('health', { url: '/api/health' })
    if (lastId) {
      await call('read', { url: `/api/memes/${lastId}` })
      await call('media', { url: `/media/${lastId}` })
    }
  })
  const answers = traffic.answers

  // Each kind of call and its operation in the OpenAPI document: what it answered must be listed there.
  const operations: Record<string, [string, string]> = {
    upload: ['post', '/api/memes'],
    list: ['get', '/api/memes'],
    search: ['get', '/api/memes'],
    tags: ['get', '/api/tags'],
    health: ['get', '/api/health'],
    read: ['get', '/api/memes/{id}'],
    media: ['get', '/media/{id}'],
  }
  const doc = (await b.inject({ url: '/openapi.json' })).json()
  await sleep(4000)
  t.comment(`before: ${JSON.stringify(tally(answers))}`)
  // A clean shutdown (fast: clients are disconnected) and then a crash (immediate: no shutdown checkpoint).
  for (const mode of ['fast', 'immediate'] as const) {
    // Recovered: a fresh upload is published, without restarting the app.
    const { down, upAgain, recoveredAt } = await postgresOutage(pg, traffic, {
      mode,
      recovered: (x) => x.kind === 'upload' && x.status === 201,
      settleMs: 2000,
    })
    t.comment(`${mode} stop, while down: ${JSON.stringify(tally(down))}`)
    t.comment(`${mode} stop, after: ${JSON.stringify(tally(answers.filter((x) => x.startedAt > upAgain)))}`)
    t.ok(down.length > 5, `${down.length} requests answered while PostgreSQL was down (${mode})`)
    t.same(
      down.filter((x) => x.status >= 500 && x.status !== 503).map((x) => `${x.kind} ${x.status} ${x.body.slice(0, 120)}`),
      [],
      'no 5xx other than 503 while down',
    )
    const unavailable = down.filter((x) => x.status === 503)
    t.ok(unavailable.length > 0, 'requests that need the database answer 503')
    const unclear = unavailable.filter(
      (x) => typeof (JSON.parse(x.body) as { error?: unknown }).error !== 'string' || !x.headers['retry-after'],
    )
    t.same(
      unclear.map((x) => x.body),
      [],
      'every 503 has {"error"} and Retry-After',
    )
    t.same(undocumentedTraffic(doc, operations, down), [], 'every status answered while down is documented for its route')
    t.equal(down.filter((x) => x.kind === 'upload' && x.status < 300).length, 0, 'no upload is accepted while down')
    t.ok(slowest(down) < 3500, `slowest answer while down: ${slowest(down)} ms (fail fast, < 3.5 s)`)
    t.ok(recoveredAt, `an upload succeeded after PostgreSQL came back (${mode}), without restarting the service`)
    t.comment(`recovered ${recoveredAt ? recoveredAt - upAgain : 'never'} ms after PostgreSQL was started again (${mode})`)
  }
  await traffic.stop()

  // Every upload that got 201/202 is stored with its media; nothing is half-written.
  const acceptedIds = [...new Set(answers.map(uploadedId).filter((id) => id !== undefined))]
  const memes = (await a.db.query<{ id: string; status: string }>('SELECT id, status FROM memes')).rows
  const media = (await a.db.query<{ meme_id: string }>('SELECT meme_id FROM meme_media')).rows
  const stored = new Set(memes.map((m) => m.id))
  t.same(
    acceptedIds.filter((id) => !stored.has(id)),
    [],
    `all ${acceptedIds.length} accepted uploads are stored`,
  )
  t.same(media.map((m) => m.meme_id).sort(), memes.map((m) => m.id).sort(), 'every meme row has its media, no orphan media')
  for (const id of acceptedIds.slice(-3)) {
    t.equal((await a.inject(`/media/${id}`)).statusCode, 200, `media of ${id.slice(0, 8)} served by instance A`)
  }
  // The other instance heard about the uploads (NOTIFY re-established, or its resync after reconnecting).
  const newest = acceptedIds.at(-1)
  let seenByB = false
  for (let i = 0; i < 50 && !seenByB; i++) {
    const list = (await b.inject('/api/memes?pageSize=48')).json() as {
      items?: Array<{ id: string }>
      memes?: Array<{ id: string }>
    }
    seenByB = JSON.stringify(list).includes(newest ?? '-')
    if (!seenByB) await sleep(100)
  }
  t.ok(seenByB, 'instance B lists the newest upload made through A after the restart')
})

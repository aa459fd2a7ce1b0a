import { test } from 'tap'
import { buildApp, pngImage, uploadRequest } from './fixtures.ts'

test('uploads beyond the two decode slots and the waiting line answer 503 with Retry-After', async (t) => {
  const app = await buildApp(t, { UPLOAD_DECODE_QUEUE: '1', UPLOAD_RATE_LIMIT: '1000' })
  await app.moderation.classifier.ready()
  // Holds each upload inside its decode slot (at classification) until the gate opens.
  const classify = app.moderation.moderate
  let openGate = () => {}
  const gate = new Promise<void>((resolve) => {
    openGate = resolve
  })
  // A safety valve, not a timing assertion: without a bounded line the test fails instead of hanging.
  const valve = setTimeout(openGate, 15_000)
  t.teardown(() => clearTimeout(valve))
  let bothHeld = () => {}
  const slotsFull = new Promise<void>((resolve) => {
    bothHeld = resolve
  })
  let held = 0
  app.moderation.moderate = async (pixels) => {
    if (++held === 2) bothHeld()
    await gate
    return classify(pixels)
  }

  const images = await Promise.all([1, 2, 3, 4].map((seed) => pngImage(100 + seed)))
  const inSlots = [app.inject(uploadRequest(images[0] as Buffer)), app.inject(uploadRequest(images[1] as Buffer))]
  await slotsFull
  // One of these takes the single waiting place; the other finds the line full.
  const queued = [app.inject(uploadRequest(images[2] as Buffer)), app.inject(uploadRequest(images[3] as Buffer))]
  const firstAnswer = await Promise.race(queued)
  t.equal(firstAnswer.statusCode, 503, firstAnswer.body)
  t.match(firstAnswer.json(), { error: /try again/ })
  t.ok(Number(firstAnswer.headers['retry-after']) >= 1, `Retry-After: ${firstAnswer.headers['retry-after']}`)

  openGate()
  const others = await Promise.all([...inSlots, ...queued])
  t.same(
    others.map((r) => r.statusCode).sort(),
    [201, 201, 201, 503],
    'the held and the waiting uploads finish once the slots free up',
  )
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM upload_events')
  t.equal(Number(rows[0]?.n), 3, 'the refused upload used no quota')
})

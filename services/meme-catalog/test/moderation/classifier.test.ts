import { eventually } from '@app/testing'
import sharp from 'sharp'
import { test } from 'tap'
import { createClassifier } from '../../src/moderation/classifier.ts'
import { scorePredictions } from '../../src/moderation/score.ts'

const silent = { info: () => {}, error: () => {} }
const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { statusCode?: number }) => error.statusCode,
  )

async function pixels(color: string): Promise<Uint8Array> {
  const raw = await sharp({ create: { width: 224, height: 224, channels: 3, background: color } })
    .raw()
    .toBuffer()
  return new Uint8Array(raw)
}

test('the real nsfwjs model answers in a worker thread, requests queued in order', async (t) => {
  const classifier = createClassifier({ log: silent })
  t.teardown(() => classifier.close())
  await classifier.ready()
  const inputs = await Promise.all(['#ffffff', '#204080', '#d08040'].map(pixels))
  const results = await Promise.all(inputs.map((px) => classifier.classify(px)))
  for (const predictions of results) {
    t.same(predictions.map((p) => p.className).sort(), ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'])
    const total = predictions.reduce((sum, p) => sum + p.probability, 0)
    t.ok(Math.abs(total - 1) < 0.01, `probabilities sum to 1 (${total})`)
    const { score } = scorePredictions(predictions)
    t.ok(score >= 0 && score <= 100)
  }
  t.same(await classifier.classify(inputs[0]), results[0], 'deterministic for the same pixels')
  t.equal(classifier.queued, 0)
})

test('the worker registers only the WASM backend (the full TensorFlow.js would add the CPU and WebGL ones)', async (t) => {
  const loaded: { backend?: string; backends?: string[] }[] = []
  const classifier = createClassifier({ log: { info: (o) => loaded.push(o as object), error: () => {} } })
  t.teardown(() => classifier.close())
  await classifier.ready()
  t.equal(loaded.length, 1, 'one load logged')
  t.equal(loaded[0].backend, 'wasm')
  t.same(loaded[0].backends, ['wasm'])
})

test('a full queue and a closed classifier answer 503 instead of piling up', async (t) => {
  const classifier = createClassifier({ log: silent, maxQueue: 1 })
  await classifier.ready()
  const px = await pixels('#808080')
  const running = classifier.classify(px)
  t.equal(await statusOf(classifier.classify(px)), 503, 'queue full')
  await running
  await classifier.close()
  t.equal(await statusOf(classifier.classify(px)), 503, 'closed')
})

test('queued requests fail cleanly when the classifier closes under them', async (t) => {
  const classifier = createClassifier({ log: silent })
  await classifier.ready()
  const outcome = t.rejects(classifier.classify(await pixels('#123456')))
  await classifier.close()
  await outcome
})

test('the model loads on the first request, unloads when idle and answers the same after reloading', async (t) => {
  const classifier = createClassifier({ log: silent, idleMs: 300 })
  t.teardown(() => classifier.close())
  t.equal(classifier.loaded, false, 'nothing is loaded before the first request')
  const px = await pixels('#d08040')
  const first = await classifier.classify(px)
  t.same(
    first.map((p) => p.className).sort(),
    ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'],
    'the first request is classified',
  )
  t.equal(classifier.loaded, true)
  await eventually(() => !classifier.loaded || undefined, { what: 'the idle model unloaded', timeoutMs: 10_000, intervalMs: 50 })
  t.same(await classifier.classify(px), first, 'a reloaded model answers as before')
  t.equal(classifier.queued, 0)
})

test('requests keep the model loaded; one arriving as the idle worker stops is answered by a new one', async (t) => {
  const classifier = createClassifier({ log: silent, idleMs: 1 })
  t.teardown(() => classifier.close())
  const px = await pixels('#204080')
  // Each request lands around the moment the previous one's idle timer stops the worker.
  const results = []
  for (let i = 0; i < 4; i++) {
    results.push(await classifier.classify(px))
    await new Promise((resolve) => setTimeout(resolve, i))
  }
  for (const result of results) t.same(result, results[0], 'every request answered, the same way')
})

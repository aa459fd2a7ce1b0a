// The classifier's WASM heap and CPU, with and without prepareForInference() (src/moderation/model-memory.ts).
//   node --expose-gc --import tsx bench/classifier-heap.ts            (RUNS=5 processes per variant, alternating)
// Each child process does what the worker does (load the model, a warm-up prediction, then N classifications of
// the same 7 inputs) and reports the WebAssembly memory, RSS after GC and the scores. A last child holds both
// models and times them in alternating blocks of 8 classifications (CPU of one thread, median of the blocks).
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { seededNoise } from '@app/testing'
import * as tf from '@tensorflow/tfjs-core'
import { type LayersModel, loadLayersModel } from '@tensorflow/tfjs-layers'
import sharp from 'sharp'
import { loadModelArtifacts, useWasmBackend } from '../src/moderation/model-files.ts'
import { prepareForInference } from '../src/moderation/model-memory.ts'

const SIZE = 224
const RUNS = Number(process.env.RUNS ?? 5)
const N = Number(process.env.N ?? 31)
const BLOCKS = Number(process.env.BLOCKS ?? 8)
const MiB = (bytes: number) => +(bytes / 1048576).toFixed(1)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Seeded noise, the noise blurred at three radii, three flat colours. */
async function inputs(): Promise<Uint8Array[]> {
  const noise = seededNoise(SIZE * SIZE * 3)
  const raw = { raw: { width: SIZE, height: SIZE, channels: 3 as const } }
  const out = [noise]
  for (const sigma of [1, 3, 8]) out.push(await sharp(noise, raw).blur(sigma).raw().toBuffer())
  for (const background of ['#ffffff', '#204080', '#d08040'])
    out.push(
      await sharp({ create: { width: SIZE, height: SIZE, channels: 3, background } })
        .raw()
        .toBuffer(),
    )
  return out.map((buffer) => new Uint8Array(buffer))
}

async function load(prepare: boolean): Promise<LayersModel> {
  const model = await loadLayersModel(tf.io.fromMemory(loadModelArtifacts()))
  if (prepare) prepareForInference(model)
  tf.tidy(() => model.predict(tf.zeros([1, SIZE, SIZE, 3])) as tf.Tensor).dispose()
  return model
}

/** As the worker's classify(). */
function classify(model: LayersModel, pixels: Uint8Array): number[] {
  const output = tf.tidy(() => {
    const scaled = tf.div(tf.cast(tf.tensor3d(pixels, [SIZE, SIZE, 3], 'int32'), 'float32'), tf.scalar(255))
    return model.predict(tf.reshape(scaled, [1, SIZE, SIZE, 3])) as tf.Tensor
  })
  const values = Array.from(output.dataSync())
  output.dispose()
  return values
}

async function child(variant: string) {
  await useWasmBackend()
  const wasmBytes = () => (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8.buffer.byteLength
  const rss = () => {
    globalThis.gc?.()
    return process.memoryUsage().rss / 1048576
  }
  const images = await inputs()
  if (variant === 'cpu') {
    const models = [await load(false), await load(true)]
    const ms: number[][] = [[], []]
    for (let block = 0; block < BLOCKS; block++)
      for (const which of block % 2 ? [1, 0] : [0, 1]) {
        const start = process.cpuUsage()
        for (let i = 0; i < 8; i++) classify(models[which], images[i % images.length])
        const used = process.cpuUsage(start)
        ms[which].push((used.user + used.system) / 1000 / 8)
      }
    console.log(JSON.stringify({ before: median(ms[0]), after: median(ms[1]) }))
    return
  }
  const rssStart = rss()
  const model = await load(variant === 'after')
  const report: Record<string, unknown> = { wasmLoaded: MiB(wasmBytes()), rssLoaded: +(rss() - rssStart).toFixed(1) }
  const scores: number[][] = []
  const start = process.cpuUsage()
  for (let i = 0; i < N; i++) {
    const values = classify(model, images[i % images.length])
    if (i < images.length) scores.push(values)
    if (i === 2) Object.assign(report, { wasm3: MiB(wasmBytes()), rss3: +(rss() - rssStart).toFixed(1) })
  }
  const used = process.cpuUsage(start)
  Object.assign(report, { wasmN: MiB(wasmBytes()), rssN: +(rss() - rssStart).toFixed(1) })
  console.log(JSON.stringify({ ...report, cpuMs: +((used.user + used.system) / 1000 / N).toFixed(1), scores }))
}

function run(variant: string) {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), variant])
  return JSON.parse(out.toString().trim().split('\n').at(-1) as string)
}

const variant = process.argv[2]
if (variant) await child(variant)
else {
  const results: Record<string, ReturnType<typeof run>[]> = { before: [], after: [] }
  for (let i = 0; i < RUNS; i++) for (const v of i % 2 ? ['after', 'before'] : ['before', 'after']) results[v].push(run(v))
  console.log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${RUNS} runs each, ${N} classifications`,
  )
  console.log('variant | WASM after load | after 3 | after N | RSS after N (MiB over start, range) | CPU ms (median)')
  for (const [v, rs] of Object.entries(results)) {
    const range = (k: string) => `${Math.min(...rs.map((r) => r[k]))}–${Math.max(...rs.map((r) => r[k]))}`
    console.log(
      `${v} | ${range('wasmLoaded')} MiB | ${range('wasm3')} MiB | ${range('wasmN')} MiB | ${range('rssN')} | ${median(rs.map((r) => r.cpuMs))}`,
    )
  }
  const reference = JSON.stringify(results.before[0].scores)
  const identical = [...results.before, ...results.after].every((r) => JSON.stringify(r.scores) === reference)
  const cpu = run('cpu')
  const ratio = cpu.after / cpu.before
  console.log(`scores identical in every run: ${identical ? 'PASS' : 'FAIL'}`)
  console.log(
    `CPU per classification, one thread, alternating blocks: before ${cpu.before.toFixed(1)} ms, after ${cpu.after.toFixed(1)} ms, ratio ${ratio.toFixed(3)} ${ratio < 1.05 ? 'PASS' : 'FAIL'}`,
  )
  const smaller = median(results.after.map((r) => r.wasmN)) < median(results.before.map((r) => r.wasmN))
  console.log(`WASM heap after ${N} classifications smaller: ${smaller ? 'PASS' : 'FAIL'}`)
}

// Runs nsfwjs's MobileNetV2 on the WASM backend in a worker thread, so inference never blocks the server's event loop.
// Only the TensorFlow.js parts the model needs are imported (core, layers, the WASM backend): nsfwjs's own entry
// imports all of @tensorflow/tfjs (the CPU and WebGL backends, the converter, tfjs-data), about 35 MiB of code it never runs.
import { parentPort } from 'node:worker_threads'
import * as tf from '@tensorflow/tfjs-core'
import { type LayersModel, loadLayersModel } from '@tensorflow/tfjs-layers'
import { loadModelArtifacts, NSFW_CLASSES, useWasmBackend } from './model-files.ts'
import { prepareForInference } from './model-memory.ts'

export interface ClassifyRequest {
  id: number
  /** 224x224 RGB pixels, row-major. */
  pixels: Uint8Array
}

export type WorkerMessage =
  /** backends: every TensorFlow.js backend registered in the worker (only the WASM one is imported). */
  | { type: 'ready'; backend: string; backends: string[]; loadMs: number }
  | { type: 'result'; id: number; predictions: { className: string; probability: number }[] }
  | { type: 'error'; id: number; message: string }
  | { type: 'fatal'; message: string }

const port = parentPort
if (!port) throw new Error('moderation worker must run in a worker thread')

const SIZE = 224

/** As nsfwjs's classify(): pixels scaled to 0..1, the model's five probabilities, highest first. */
async function classify(model: LayersModel, pixels: Uint8Array) {
  const probabilities = tf.tidy(() => {
    const input = tf.tensor3d(pixels, [SIZE, SIZE, 3], 'int32')
    const scaled = tf.div(tf.cast(input, 'float32'), tf.scalar(255))
    return model.predict(tf.reshape(scaled, [1, SIZE, SIZE, 3])) as tf.Tensor
  })
  const values = await probabilities.data()
  probabilities.dispose()
  return Array.from(values, (probability, index) => ({ className: NSFW_CLASSES[index], probability })).sort(
    (a, b) => b.probability - a.probability,
  )
}

async function start() {
  const started = performance.now()
  await useWasmBackend()
  const model = await loadLayersModel(tf.io.fromMemory(loadModelArtifacts()))
  prepareForInference(model)
  // A first prediction allocates the backend's buffers now rather than in the first upload (nsfwjs does the same).
  tf.tidy(() => model.predict(tf.zeros([1, SIZE, SIZE, 3])) as tf.Tensor).dispose()
  port!.postMessage({
    type: 'ready',
    backend: tf.getBackend(),
    backends: Object.keys(tf.engine().registryFactory),
    loadMs: performance.now() - started,
  } satisfies WorkerMessage)
  let chain = Promise.resolve()
  port!.on('message', (request: ClassifyRequest) => {
    chain = chain.then(async () => {
      try {
        const predictions = await classify(model, request.pixels)
        port!.postMessage({ type: 'result', id: request.id, predictions } satisfies WorkerMessage)
      } catch (error) {
        port!.postMessage({ type: 'error', id: request.id, message: (error as Error).message } satisfies WorkerMessage)
      }
    })
  })
}

start().catch((error: Error) => {
  port.postMessage({ type: 'fatal', message: error.message } satisfies WorkerMessage)
})

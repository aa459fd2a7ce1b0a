// Runs nsfwjs on the WASM backend in a worker thread, so inference never blocks the server's event loop.
import { createRequire } from 'node:module'
import path from 'node:path'
import { parentPort } from 'node:worker_threads'
import * as tf from '@tensorflow/tfjs'
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm'
import { load } from 'nsfwjs'

export interface ClassifyRequest {
  id: number
  /** 224x224 RGB pixels, row-major. */
  pixels: Uint8Array
}

export type WorkerMessage =
  | { type: 'ready'; backend: string; loadMs: number }
  | { type: 'result'; id: number; predictions: { className: string; probability: number }[] }
  | { type: 'error'; id: number; message: string }
  | { type: 'fatal'; message: string }

const port = parentPort
if (!port) throw new Error('moderation worker must run in a worker thread')

const require = createRequire(import.meta.url)
// The .wasm binaries ship in the package's dist folder; a file path keeps start-up offline.
const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))

async function start() {
  const started = performance.now()
  setWasmPaths(`${wasmDir}${path.sep}`)
  // Emscripten's thread pool needs Blob-URL workers, which Node lacks: single-threaded SIMD build.
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false)
  await tf.setBackend('wasm')
  await tf.ready()
  // The model ships as JS modules inside the nsfwjs package: nothing is fetched. Its banner is noise.
  const info = console.info
  console.info = () => {}
  const model = await load('MobileNetV2', { size: 224 }).finally(() => {
    console.info = info
  })
  port!.postMessage({ type: 'ready', backend: tf.getBackend(), loadMs: performance.now() - started } satisfies WorkerMessage)
  let chain = Promise.resolve()
  port!.on('message', (request: ClassifyRequest) => {
    chain = chain.then(async () => {
      try {
        const input = tf.tensor3d(request.pixels, [224, 224, 3], 'int32')
        const predictions = await model.classify(input, 5)
        input.dispose()
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

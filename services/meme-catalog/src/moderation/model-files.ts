import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm'
import { env, type io, ready, setBackend } from '@tensorflow/tfjs-core'

/** The model's outputs in order (nsfwjs's class list). */
export const NSFW_CLASSES = ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy']

const require = createRequire(import.meta.url)
// nsfwjs ships MobileNetV2 (a Keras layers model) as two JS modules: the topology, and the weights as one base64 string.
const modelDir = path.resolve(path.dirname(require.resolve('nsfwjs/models/mobilenet_v2')), '../../models/mobilenet_v2')

/**
 * TensorFlow.js on the WASM backend, its .wasm binaries read from the package's dist folder (start-up stays
 * offline). Emscripten's thread pool needs Blob-URL workers, which Node lacks: the single-threaded SIMD build.
 */
export async function useWasmBackend(): Promise<void> {
  setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}${path.sep}`)
  env().set('WASM_HAS_MULTITHREAD_SUPPORT', false)
  await setBackend('wasm')
  await ready()
}

const BYTES_PER_VALUE: Record<string, number> = { float32: 4, int32: 4, float16: 2, uint16: 2, uint8: 1, bool: 1 }

/** Bytes the manifest's weights take as stored (quantized weights at their quantized width). */
function manifestBytes(weights: io.WeightsManifestEntry[]): number {
  let total = 0
  for (const { shape, dtype, quantization } of weights) {
    const values = shape.reduce((a, b) => a * b, 1)
    total += values * BYTES_PER_VALUE[quantization?.dtype ?? dtype]
  }
  return total
}

/**
 * The model's topology and weights from the files inside the nsfwjs package; nothing is fetched. The weights
 * module is read as text and its base64 string decoded here rather than imported: an import would keep the
 * 3.5 MB module and its source in the worker's heap for as long as the worker lives.
 */
export function loadModelArtifacts(): io.ModelArtifacts {
  const { modelTopology, weightsManifest } = require(path.join(modelDir, 'model.min.js')) as {
    modelTopology: object
    weightsManifest: io.WeightsManifestConfig
  }
  const weightSpecs = weightsManifest.flatMap((group) => group.weights)
  const parts = weightsManifest
    .flatMap((group) => group.paths)
    .map((shard) => {
      const source = readFileSync(path.join(modelDir, `${shard}.min.js`), 'latin1')
      const base64 = /"([A-Za-z0-9+/=]{1000,})"/.exec(source)?.[1]
      if (!base64) throw new Error(`no base64 weights found in ${shard}.min.js`)
      return Buffer.from(base64, 'base64')
    })
  const bytes = Buffer.concat(parts)
  if (bytes.byteLength !== manifestBytes(weightSpecs))
    throw new Error(`the model's weights hold ${bytes.byteLength} bytes, its manifest ${manifestBytes(weightSpecs)}`)
  return { modelTopology, weightSpecs, weightData: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }
}

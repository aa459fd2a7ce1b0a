// Keeps the WASM heap of a Keras layers model on the WASM backend small. WebAssembly memory grows in 20 % steps
// and never shrinks, so its size is set by the high-water mark of the first predictions: this module lowers what
// one prediction holds at once and puts the long-lived buffers below the activations instead of between them.
import * as tf from '@tensorflow/tfjs-core'
import type { LayersModel } from '@tensorflow/tfjs-layers'

type Layer = LayersModel['layers'][number]

/** The parts of the WASM backend this module uses (public fields of BackendWasm, typed here to stay minimal). */
interface WasmBackend {
  wasm: { _free(offset: number): void }
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined }
}

const CONVOLUTIONS = new Set(['Conv2D', 'DepthwiseConv2D'])

/**
 * tfjs-layers frees each layer's output once the next layers have used it, but not what a layer makes on the way:
 * every ReLU layer's relu() before its clip at 6 stayed until the end of predict() (35 layers, 23 MiB at 224x224).
 * Each layer now runs in its own tidy, and ReLU capped at 6 runs as the single Relu6 kernel, min(max(x, 0), 6):
 * the same values as relu then clipByValue, without the full-size tensor in between.
 */
function tidyEachLayer(model: LayersModel) {
  for (const layer of model.layers) {
    const relu6 = layer.getClassName() === 'ReLU' && (layer as Layer & { maxValue?: number }).maxValue === 6
    const call = layer.call.bind(layer)
    layer.call = relu6
      ? (inputs) => tf.tidy(() => tf.relu6(Array.isArray(inputs) ? inputs[0] : inputs))
      : (inputs, kwargs) => tf.tidy(() => call(inputs, kwargs))
  }
}

/**
 * XNNPACK copies each convolution's kernel into its own packed buffer the first time the convolution runs, and
 * the backend keeps that operator for as long as the kernel tensor lives; the kernel's own float32 values are not
 * read again. Running the convolutions once on a tiny input packs them all before any full-size activation is
 * allocated; the unpacked kernels (8.4 MiB for MobileNetV2) are then handed back to the allocator, which reuses
 * them for activations. The kernel tensors stay registered (disposing them would delete the packed operators),
 * so they must not be read or disposed afterwards: the worker holding the model ends with it.
 */
function packConvolutions(model: LayersModel, size: number) {
  const convolutions = model.layers.filter((layer) => CONVOLUTIONS.has(layer.getClassName()))
  const last = convolutions.at(-1)
  if (!last) return
  tf.tidy(() => {
    model.execute(tf.zeros([1, size, size, 3]), (last.output as { name: string }).name)
  })
  const backend = tf.backend() as unknown as WasmBackend
  for (const layer of convolutions) {
    const kernel = layer.weights.find((weight) => /kernel/.test(weight.originalName))?.read()
    const data = kernel && backend.dataIdMap.get(kernel.dataId)
    if (data) backend.wasm._free(data.memoryOffset)
  }
}

/**
 * Prepares a loaded model for predictions only, before its first one. `packSize`: an input side small enough to
 * be cheap and large enough for every convolution (32 for MobileNetV2, whose features are 1/32 of the input).
 */
export function prepareForInference(model: LayersModel, packSize = 32) {
  tidyEachLayer(model)
  packConvolutions(model, packSize)
}

import { seededNoise } from '@app/testing'
import * as tf from '@tensorflow/tfjs-core'
import { loadLayersModel } from '@tensorflow/tfjs-layers'
import sharp from 'sharp'
import { test } from 'tap'
import { createClassifier } from '../../src/moderation/classifier.ts'
import { loadModelArtifacts, NSFW_CLASSES, useWasmBackend } from '../../src/moderation/model-files.ts'

const SIZE = 224
const silent = { info: () => {}, error: () => {} }

/** A flat colour, seeded noise and the same noise blurred: flat, busy and smooth inputs. */
async function inputs(): Promise<Uint8Array[]> {
  const noise = seededNoise(SIZE * SIZE * 3)
  const raw = { raw: { width: SIZE, height: SIZE, channels: 3 as const } }
  return [
    await sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: '#d08040' } })
      .raw()
      .toBuffer(),
    noise,
    await sharp(noise, raw).blur(4).raw().toBuffer(),
  ].map((buffer) => new Uint8Array(buffer))
}

/** The model as tfjs-layers loads it, untouched, in this thread: predict() as nsfwjs calls it. */
async function reference(images: Uint8Array[]) {
  await useWasmBackend()
  const model = await loadLayersModel(tf.io.fromMemory(loadModelArtifacts()))
  const results = []
  for (const pixels of images) {
    const output = tf.tidy(() => {
      const scaled = tf.div(tf.cast(tf.tensor3d(pixels, [SIZE, SIZE, 3], 'int32'), 'float32'), tf.scalar(255))
      return model.predict(tf.reshape(scaled, [1, SIZE, SIZE, 3])) as tf.Tensor
    })
    const values = await output.data()
    output.dispose()
    results.push(
      Array.from(values, (probability, index) => ({ className: NSFW_CLASSES[index], probability })).sort(
        (a, b) => b.probability - a.probability,
      ),
    )
  }
  return results
}

test("the worker's scores are tfjs-layers' own predict() of the model, to the last digit, prediction after prediction", async (t) => {
  const images = await inputs()
  const expected = await reference(images)
  const classifier = createClassifier({ log: silent })
  t.teardown(() => classifier.close())
  for (let round = 0; round < 2; round++) {
    for (const [index, pixels] of images.entries())
      t.same(await classifier.classify(pixels), expected[index], `image ${index}, round ${round + 1}`)
  }
})

import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { type Classifier, createClassifier } from './classifier.ts'
import { decide, type ModerationDecision, type ModerationResult, scorePredictions } from './score.ts'

export interface Moderation {
  classifier: Classifier
  /** Scores 224x224 RGB pixels with the real classifier. */
  moderate(pixels: Uint8Array): Promise<ModerationResult>
  /** Applies MODERATION_REVIEW_SCORE / MODERATION_REJECT_SCORE. */
  decide(score: number): ModerationDecision
}

declare module 'fastify' {
  interface FastifyInstance {
    moderation: Moderation
  }
}

/**
 * The classifier in a worker thread, loaded by the first upload and unloaded after MODEL_IDLE_SECONDS
 * without one; decorates `fastify.moderation`.
 */
export const moderationPlugin = fp(
  async function moderationPlugin(fastify: FastifyInstance, { config }: { config: Config }) {
    const classifier = createClassifier({ log: fastify.log, idleMs: config.MODEL_IDLE_SECONDS * 1000 })
    const thresholds = { review: config.MODERATION_REVIEW_SCORE, reject: config.MODERATION_REJECT_SCORE }
    fastify.decorate('moderation', {
      classifier,
      async moderate(pixels: Uint8Array) {
        return scorePredictions(await classifier.classify(pixels))
      },
      decide: (score: number) => decide(score, thresholds),
    } satisfies Moderation)
    fastify.addHook('onClose', () => classifier.close())
    // The model loads with the first upload: an instance is not ready when its last load failed or it is closing.
    fastify.readiness.add('classifier', async () => classifier.problem)
  },
  { name: 'app-moderation', fastify: '5.x' },
)

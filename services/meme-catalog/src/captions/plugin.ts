import { repositoryPlugin } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { type CaptionJobsRepository, createCaptionJobsRepository } from './jobs.ts'
import { createCaptioner } from './providers/index.ts'
import { type CaptionWordsRepository, createCaptionWordsRepository } from './words-repository.ts'
import { CAPTION_CHANNEL, type CaptionWorker, createCaptionWorker } from './worker.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The caption job queue (enqueue, inspect); the worker claims from it. */
    captionJobs: CaptionJobsRepository & { notify(memeId: string): Promise<void> }
    captionWorker: CaptionWorker
    /** Where the OCR read each word of a caption (read side). */
    captionWords: CaptionWordsRepository
  }
}

export const captionWordsRepositoryPlugin = repositoryPlugin(
  'caption-words-repository',
  'captionWords',
  createCaptionWordsRepository,
)

export interface CaptionsPluginOptions {
  config: Config
}

/**
 * Captions stored memes off the request path: a worker per instance draining the durable
 * caption_jobs queue with the provider CAPTIONER names. Starts once the app is ready.
 */
export const captionsPlugin = fp(
  async function captionsPlugin(fastify: FastifyInstance, { config }: CaptionsPluginOptions) {
    const captioner = createCaptioner(config)
    const jobs = createCaptionJobsRepository(fastify.db)
    const worker = createCaptionWorker({
      db: fastify.db,
      captioner,
      log: fastify.log.child({ component: 'captions' }),
      concurrency: config.CAPTION_CONCURRENCY,
      leaseSeconds: config.CAPTION_LEASE_SECONDS,
      maxAttempts: config.CAPTION_MAX_ATTEMPTS,
      retryBaseMs: config.CAPTION_RETRY_BASE_MS,
      pollMs: config.CAPTION_POLL_MS,
      applyResult: (job, result, source) => fastify.memeUseCases.captioned(job, result, source),
    })
    fastify.decorate('captionJobs', {
      ...jobs,
      // Wakes the workers of every instance (ours directly, in case NOTIFY is slow).
      async notify(memeId: string) {
        await fastify.db.notify(CAPTION_CHANNEL, memeId)
        worker.wake()
      },
    })
    fastify.decorate('captionWorker', worker)
    fastify.addHook('onReady', async () => {
      await worker.start()
      fastify.log.info({ captioner: captioner.name, concurrency: config.CAPTION_CONCURRENCY }, 'caption worker started')
    })
    fastify.addHook('onClose', async () => {
      await worker.stop()
      await captioner.close()
    })
  },
  { name: 'meme-captions', dependencies: ['app-database', 'meme-use-cases'] },
)

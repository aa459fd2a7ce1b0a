import { HttpError } from '@app/common'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createSemaphore } from '../uploads/semaphore.ts'

/** Decode slots: decoded pixels can reach 80 MB per image, so at most two images are in memory at once. */
export const DECODE_SLOTS = 2

/** A slot is held about a second per image: by then the waiting line has moved on. */
const DECODE_BUSY_RETRY_AFTER_SECONDS = 5

/** The answer when every decode slot is busy and the line waiting for one is full. */
export const decodeBusy = () =>
  new HttpError(503, 'Too many images are being processed right now; try again shortly.', {
    'Retry-After': DECODE_BUSY_RETRY_AFTER_SECONDS,
  })

export type DecodeSlots = ReturnType<typeof createSemaphore>

declare module 'fastify' {
  interface FastifyInstance {
    /** The decode slots every route that decodes an image (uploads, search by image) shares. */
    decodeSlots: DecodeSlots
  }
}

/** Decorates `fastify.decodeSlots`: two slots, `queue` requests waiting at most (more are refused at once). */
export const decodeSlotsPlugin = fp(
  async function decodeSlotsPlugin(fastify: FastifyInstance, { queue }: { queue: number }) {
    fastify.decorate('decodeSlots', createSemaphore(DECODE_SLOTS, queue))
  },
  { name: 'meme-decode-slots' },
)

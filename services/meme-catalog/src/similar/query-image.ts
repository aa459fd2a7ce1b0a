import { badRequest, HttpError, type RouteRateLimit } from '@app/common'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { decodeCostRefusal } from '../images/decode-cost.ts'
import { decodeBusy } from '../images/plugin.ts'
import { classifierPixels, decode, ImageRejectedError, perceptualHash, readHeader } from '../images/process.ts'
import { checkStructure, sniffImageType } from '../images/sniff.ts'
import { readMemeFile } from '../uploads/multipart.ts'
import { SemaphoreFullError } from '../uploads/semaphore.ts'

/**
 * The perceptual hash of the image in a search-by-image request, computed as an upload's is (same checks, same
 * decode slots, same 224 px rendition) so a copy of a stored meme hashes alike. The bytes stay in memory and are
 * dropped with the request: nothing is written anywhere.
 */
export function createQueryImageHasher(fastify: FastifyInstance, rule: RouteRateLimit, failureCost: number) {
  /** A failed decode cost CPU: its sender pays several requests of this route's rate limit. */
  async function chargeFailedDecode(ip: string) {
    await Promise.all(Array.from({ length: failureCost }, () => fastify.rateLimiter.consume(rule, ip)))
  }

  return async function hashQueryImage(request: FastifyRequest): Promise<string> {
    const file = await readMemeFile(request)
    const mime = sniffImageType(file.bytes)
    if (!mime) throw new HttpError(415, 'Only PNG and JPEG images are accepted (checked by content, not by name or type).')
    const structure = checkStructure(file.bytes, mime)
    if (structure === 'trailing') {
      throw new HttpError(
        415,
        'The file carries data after the end of the image (a polyglot); only plain PNG or JPEG is accepted.',
      )
    }
    try {
      if (structure === 'truncated') throw new ImageRejectedError('The image is truncated or corrupt.')
      const tooCostly = await decodeCostRefusal(file.bytes, mime)
      if (tooCostly) throw new ImageRejectedError(tooCostly)
      await readHeader(file.bytes)
    } catch (error) {
      if (error instanceof ImageRejectedError) throw badRequest(error.message)
      throw error
    }
    try {
      return await fastify.decodeSlots.run(async () => perceptualHash(await classifierPixels(await decode(file.bytes))))
    } catch (error) {
      if (error instanceof SemaphoreFullError) throw decodeBusy()
      if (!(error instanceof ImageRejectedError)) throw error
      await chargeFailedDecode(request.ip)
      throw badRequest(error.message)
    }
  }
}

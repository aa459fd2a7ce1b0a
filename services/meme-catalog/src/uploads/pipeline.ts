import { webcrypto } from 'node:crypto'
import { badRequest, HttpError, type RouteRateLimit, rateLimitClient } from '@app/common'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { decodeCostRefusal } from '../images/decode-cost.ts'
import { NEAR_DUPLICATE_DISTANCE } from '../images/phash.ts'
import { decodeBusy } from '../images/plugin.ts'
import { classifierPixels, decode, ImageRejectedError, perceptualHash, readHeader, toWebp } from '../images/process.ts'
import { checkStructure, type ImageMime, sniffImageType } from '../images/sniff.ts'
import { toMeme } from '../memes/repository.ts'
import type { MemeT } from '../memes/schemas.ts'
import { readMemeFile, sanitizeFileName } from './multipart.ts'
import { createRefusalMemory } from './refusals.ts'
import {
  createUploadsRepository,
  type ExistingMeme,
  type QuotaLimits,
  type QuotaUsage,
  type QuotaWindow,
  type UploadsRepository,
} from './repository.ts'
import { SemaphoreFullError } from './semaphore.ts'

export const APPROVED_MESSAGE = 'Upload approved.'
export const PENDING_MESSAGE = 'Upload queued for admin review.'

export interface UploadQuotaT {
  remainingHour: number
  remainingDay: number
  remainingGlobalDay: number
}

export interface UploadAccepted {
  statusCode: 201 | 202
  body: {
    meme: MemeT
    quota: UploadQuotaT
    moderationScore: number
    moderationReason: string
    message: typeof APPROVED_MESSAGE | typeof PENDING_MESSAGE
  }
}

const rejectedByModeration = (message: string, moderationScore: number, moderationReason: string) =>
  new HttpError(422, message, {}, { moderationScore, moderationReason })

const QUOTA_MESSAGES: Record<QuotaWindow, (limit: number) => string> = {
  hour: (n) => `Upload quota exhausted: ${n} uploads per hour from your address.`,
  day: (n) => `Upload quota exhausted: ${n} uploads per day from your address.`,
  globalDay: (n) => `The catalog's daily upload quota (${n}) is exhausted; try again later.`,
}

async function sha256Hex(bytes: Buffer): Promise<string> {
  // WebCrypto hashes on the thread pool: a 5 MB file does not hold the event loop.
  const digest = await webcrypto.subtle.digest('SHA-256', bytes)
  return Buffer.from(digest).toString('hex')
}

export function createUploadPipeline(fastify: FastifyInstance, config: Config, uploadLimit: RouteRateLimit) {
  const limits: QuotaLimits = {
    hour: config.UPLOAD_QUOTA_HOUR,
    day: config.UPLOAD_QUOTA_DAY,
    globalDay: config.UPLOAD_QUOTA_GLOBAL_DAY,
  }
  const uploads = fastify.uploadsRepository
  const processing = fastify.decodeSlots
  const refusals = createRefusalMemory()

  const remaining = (used: QuotaUsage): UploadQuotaT => ({
    remainingHour: Math.max(0, limits.hour - used.hour),
    remainingDay: Math.max(0, limits.day - used.day),
    remainingGlobalDay: Math.max(0, limits.globalDay - used.globalDay),
  })

  /** The first exhausted window, checked hour, day, global. */
  const exhausted = (used: QuotaUsage): QuotaWindow | null =>
    (['hour', 'day', 'globalDay'] as const).find((w) => used[w] >= limits[w]) ?? null

  async function quotaError(repo: UploadsRepository, ip: string, window: QuotaWindow, used: QuotaUsage) {
    const retryAfter = await repo.secondsUntilSlot(ip, window, limits[window], used[window])
    return new HttpError(429, QUOTA_MESSAGES[window](limits[window]), { 'Retry-After': retryAfter })
  }

  /** Same bytes as a stored meme: its state answers, no new record, no quota consumed. */
  function answerExisting({ row, deleted }: ExistingMeme, quota: UploadQuotaT): UploadAccepted {
    if (deleted) {
      throw rejectedByModeration('This image was removed by an administrator.', row.moderation_score, row.moderation_reason)
    }
    if (row.status === 'rejected') {
      throw rejectedByModeration('This image was rejected by moderation.', row.moderation_score, row.moderation_reason)
    }
    const approved = row.status === 'approved'
    return {
      statusCode: approved ? 201 : 202,
      body: {
        meme: toMeme(row),
        quota,
        moderationScore: Number(row.moderation_score),
        moderationReason: row.moderation_reason,
        message: approved ? APPROVED_MESSAGE : PENDING_MESSAGE,
      },
    }
  }

  /** A failed decode spent CPU and uses no quota: it costs its sender several requests of the upload rate limit. */
  async function chargeFailedDecode(ip: string) {
    const charges = Array.from({ length: config.UPLOAD_DECODE_FAILURE_COST }, () => fastify.rateLimiter.consume(uploadLimit, ip))
    await Promise.all(charges)
  }

  /** The answer when no decode slot is free or the decoder refused the file (remembered and charged). */
  async function refuseUnprocessed(error: unknown, id: string, ip: string): Promise<never> {
    if (error instanceof SemaphoreFullError) throw decodeBusy()
    if (!(error instanceof ImageRejectedError)) throw error
    refusals.remember(id, error.message)
    await chargeFailedDecode(ip)
    throw badRequest(error.message)
  }

  /** Refuses, before any decode, what the image checks refuse; bytes refused before answer the same at once. */
  async function checkImage(bytes: Buffer, mime: ImageMime, id: string) {
    const remembered = refusals.recall(id)
    if (remembered) throw badRequest(remembered)
    const structure = checkStructure(bytes, mime)
    if (structure === 'trailing') {
      throw new HttpError(
        415,
        'The file carries data after the end of the image (a polyglot); only plain PNG or JPEG is accepted.',
      )
    }
    try {
      if (structure === 'truncated') throw new ImageRejectedError('The image is truncated or corrupt.')
      const tooCostly = await decodeCostRefusal(bytes, mime)
      if (tooCostly) throw new ImageRejectedError(tooCostly)
      await readHeader(bytes)
    } catch (error) {
      if (!(error instanceof ImageRejectedError)) throw error
      refusals.remember(id, error.message)
      throw badRequest(error.message)
    }
  }

  return async function upload(request: FastifyRequest): Promise<UploadAccepted> {
    const ip = request.ip
    // Quotas count what the rate limits count: an IPv6 uploader by its /64 network.
    const quotaClient = rateLimitClient(ip)
    // Milliseconds per stage, logged with the outcome (operations and bench/upload.ts read them).
    const timings: Record<string, number> = {}
    let mark = performance.now()
    const lap = (stage: string) => {
      const now = performance.now()
      timings[stage] = Math.round((now - mark) * 10) / 10
      mark = now
    }
    const file = await readMemeFile(request)
    lap('read')
    const originalMime = sniffImageType(file.bytes)
    if (!originalMime)
      throw new HttpError(415, 'Only PNG and JPEG images are accepted (checked by content, not by name or type).')
    const id = await sha256Hex(file.bytes)
    await checkImage(file.bytes, originalMime, id)
    lap('check')
    const existing = await uploads.findMeme(id)
    if (existing) return answerExisting(existing, remaining(await uploads.quotaUsage(quotaClient)))
    const rejected = await uploads.findRejectedHash(id)
    if (rejected)
      throw rejectedByModeration('This image was rejected by moderation.', rejected.moderationScore, rejected.moderationReason)

    const before = await uploads.quotaUsage(quotaClient)
    const window = exhausted(before)
    if (window) throw await quotaError(uploads, quotaClient, window, before)
    lap('lookup')

    const { webp, moderation, phash } = await processing
      .run(async () => {
        const image = await decode(file.bytes)
        // WebP encoding (libuv pool) and classification (worker thread) run side by side.
        const small = classifierPixels(image)
        const [webp, moderation, phash] = await Promise.all([
          toWebp(image),
          small.then((pixels) => fastify.moderation.moderate(pixels)),
          small.then(perceptualHash),
        ])
        return { webp, moderation, phash }
      })
      .catch((error) => refuseUnprocessed(error, id, ip))
    lap('process')
    const decision = fastify.moderation.decide(moderation.score)
    const nearDuplicateOf = decision === 'rejected' ? [] : await uploads.findNearDuplicates(phash, NEAR_DUPLICATE_DISTANCE)
    lap('nearDuplicates')

    const stored = await fastify.memeUseCases.upload(
      {
        id,
        status: decision,
        byteSize: webp.bytes.length,
        width: webp.width,
        height: webp.height,
        originalMime,
        originalName: sanitizeFileName(file.filename, originalMime === 'image/png' ? 'meme.png' : 'meme.jpg'),
        moderationScore: moderation.score,
        moderationReason: moderation.reason,
        phash,
        nearDuplicateOf,
        uploaderIp: ip,
        webp: webp.bytes,
      },
      async (tx) => {
        const repo = createUploadsRepository(tx)
        await repo.lockQuota()
        const used = await repo.quotaUsage(quotaClient)
        const full = exhausted(used)
        if (full) throw await quotaError(repo, quotaClient, full, used)
        await repo.recordUploadEvent(quotaClient)
        return { hour: used.hour + 1, day: used.day + 1, globalDay: used.globalDay + 1 }
      },
    )
    if ('duplicate' in stored) {
      const winner = await uploads.findMeme(id)
      if (!winner) throw new Error(`upload ${id} lost an insert race to a meme that is gone`)
      return answerExisting(winner, remaining(await uploads.quotaUsage(quotaClient)))
    }
    lap('store')
    request.log.info({ memeId: id, decision, moderationScore: moderation.score, timings }, 'upload moderated')
    if ('rejected' in stored)
      throw rejectedByModeration('The upload was rejected by moderation.', moderation.score, moderation.reason)
    return {
      statusCode: decision === 'approved' ? 201 : 202,
      body: {
        meme: toMeme(stored.stored),
        quota: remaining(stored.admitted),
        moderationScore: moderation.score,
        moderationReason: moderation.reason,
        message: decision === 'approved' ? APPROVED_MESSAGE : PENDING_MESSAGE,
      },
    }
  }
}

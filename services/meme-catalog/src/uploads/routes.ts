import type { RouteRateLimit } from '@app/common'
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { MAX_EDGE, MAX_PIXELS, MAX_UPLOAD_BYTES, WEBP_MAX_EDGE, WEBP_QUALITY } from '../images/process.ts'
import { MemeAddResponse, ModerationRejected } from '../memes/schemas.ts'
import { errorResponse, ref, tooManyUploadsResponse, unavailableResponse } from '../schemas.ts'
import { checkUploadHeaders, FIELD_NAME, MAX_REQUEST_BYTES } from './multipart.ts'
import { createUploadPipeline } from './pipeline.ts'
import { uploadsRepositoryPlugin } from './plugin.ts'

const UploadBody = Type.Object(
  {
    [FIELD_NAME]: Type.String({ format: 'binary', description: 'The PNG or JPEG file (max 5 MB, edge 6000 px, 20 megapixels).' }),
  },
  { required: [FIELD_NAME] },
)

/** POST /api/memes: validate, moderate, normalize to WebP, store; see the README for each refusal's status. */
const uploads: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  // Scoped to this plugin: the multipart parser only exists for the upload route.
  await fastify.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES } })
  await fastify.register(uploadsRepositoryPlugin)
  const uploadLimit: RouteRateLimit = {
    bucket: 'upload',
    max: config.UPLOAD_RATE_LIMIT,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
  }
  const upload = createUploadPipeline(fastify, config, uploadLimit)

  fastify.post(
    '/api/memes',
    {
      bodyLimit: MAX_REQUEST_BYTES,
      onRequest: [checkUploadHeaders],
      config: { rateLimit: uploadLimit },
      // The body is a multipart stream read by the handler; the schema documents it for OpenAPI only.
      validatorCompiler: () => () => true,
      schema: {
        operationId: 'addMeme',
        summary: 'Add one meme',
        description:
          `multipart/form-data with one file field \`${FIELD_NAME}\`: PNG or JPEG by content, at most ${MAX_UPLOAD_BYTES} bytes, ` +
          `edges up to ${MAX_EDGE} px, at most ${MAX_PIXELS} pixels. The server moderates it, strips all metadata and stores ` +
          `a WebP (longest edge at most ${WEBP_MAX_EDGE} px, quality ${WEBP_QUALITY}). Per-IP hourly and daily quotas and a ` +
          'global daily quota apply; identical bytes answer with the stored meme without using quota. Files whose decode ' +
          'would cost far more than their size suggests (over 100 JPEG scans, too many progressive passes for the ' +
          'image size, compressed PNG metadata or image data beyond what the pixels need) are refused before decoding; ' +
          'a file that fails to decode spends extra units of the upload rate limit.',
        tags: ['memes'],
        consumes: ['multipart/form-data'],
        body: UploadBody,
        response: {
          201: ref(MemeAddResponse, { 'x-response-description': 'Approved and published.' }),
          202: ref(MemeAddResponse, { 'x-response-description': 'Queued for admin review.' }),
          400: errorResponse(
            'Malformed multipart, missing/repeated/extra fields, empty file, corrupt image, too many pixels, or an image ' +
              'too costly to decode (JPEG scans or coding process, CMYK over 12 megapixels, PNG metadata or hidden data).',
          ),
          411: errorResponse('Content-Length missing (chunked uploads are refused).'),
          413: errorResponse('The file or request exceeds 5 MB.'),
          415: errorResponse('The bytes are not a PNG or JPEG image.'),
          422: ref(ModerationRejected, { 'x-response-description': 'Rejected by moderation; nothing is published.' }),
          429: tooManyUploadsResponse,
          503: unavailableResponse(
            'Every decode slot is busy and the line waiting for one is full, the classifier cannot run (model not ' +
              'loaded, or more than 32 uploads already waiting for it), or the database is unreachable: nothing is ' +
              'stored; retry after Retry-After seconds.',
          ),
        },
      },
    },
    async (request, reply) => {
      const { statusCode, body } = await upload(request)
      return reply.code(statusCode).send(body)
    },
  )
}

/** Encapsulated (multipart stays inside) yet named, so its dependencies are checked at start-up. */
export const uploadRoutes = fp(uploads, {
  name: 'meme-uploads',
  encapsulate: true,
  dependencies: [
    'app-database',
    'app-rate-limit',
    'app-moderation',
    'meme-use-cases',
    'meme-shared-schemas',
    'meme-decode-slots',
  ],
})

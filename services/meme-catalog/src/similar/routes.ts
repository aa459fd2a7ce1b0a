import { HttpError, noStore, type RouteRateLimit } from '@app/common'
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { MAX_EDGE, MAX_PIXELS, MAX_UPLOAD_BYTES } from '../images/process.ts'
import { errorResponse, noStoreResponse, ref, tooManyRequestsResponse, unavailableResponse } from '../schemas.ts'
import { checkUploadHeaders, FIELD_NAME, MAX_REQUEST_BYTES } from '../uploads/multipart.ts'
import { createQueryImageHasher } from './query-image.ts'
import { DEFAULT_SIMILAR_DISTANCE, DEFAULT_SIMILAR_LIMIT, SimilarMemesResponse, SimilarQuery } from './schemas.ts'

/** How long a search waits for the first index build before answering 503. */
const INDEX_READY_WAIT_MS = 5000

const SimilarBody = Type.Object(
  {
    [FIELD_NAME]: Type.String({
      format: 'binary',
      description: `The PNG or JPEG to look for (max 5 MB, edge ${MAX_EDGE} px, 20 megapixels); it is never stored.`,
    }),
  },
  { required: [FIELD_NAME] },
)

/** POST /api/memes/similar: search by image against the read model's perceptual-hash index. */
const similar: FastifyPluginAsyncTypebox<{ config: Config }> = async (fastify, { config }) => {
  // Scoped to this plugin, as for uploads; files are read into memory (never saved to temporary files).
  await fastify.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES } })
  const rule: RouteRateLimit = {
    bucket: 'similar',
    max: config.SIMILAR_RATE_LIMIT,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
  }
  const hashQueryImage = createQueryImageHasher(fastify, rule, config.UPLOAD_DECODE_FAILURE_COST)

  fastify.post(
    '/api/memes/similar',
    {
      bodyLimit: MAX_REQUEST_BYTES,
      onRequest: [checkUploadHeaders],
      config: { rateLimit: rule },
      // The body is a multipart stream read by the handler (its schema documents it for OpenAPI only); the query is
      // validated by the app's own compiler, read when routes compile.
      validatorCompiler: (route) => {
        if (route.httpPart === 'body') return () => true
        const compile = fastify.validatorCompiler
        if (!compile) throw new Error('the app has no validator compiler yet')
        return compile(route)
      },
      schema: {
        operationId: 'findSimilarMemes',
        summary: 'Search by image',
        description:
          `multipart/form-data with one file field \`${FIELD_NAME}\`, checked as an upload is (PNG or JPEG by content, at ` +
          `most ${MAX_UPLOAD_BYTES} bytes, edges up to ${MAX_EDGE} px, at most ${MAX_PIXELS} pixels, the same decode-cost ` +
          'refusals). Answers the approved memes whose 64-bit perceptual hash (dHash) is at most `maxDistance` bits from ' +
          "the image's, nearest first. The image is hashed in memory and dropped: nothing is stored. Its own per-IP " +
          'rate limit; a file that fails to decode spends extra units of it.',
        tags: ['memes'],
        consumes: ['multipart/form-data'],
        querystring: SimilarQuery,
        body: SimilarBody,
        response: {
          200: noStoreResponse(ref(SimilarMemesResponse), 'The matches (possibly none).'),
          400: errorResponse(
            'Invalid query parameter, malformed multipart, missing/repeated/extra fields, empty file, corrupt image, too ' +
              'many pixels, or an image too costly to decode.',
          ),
          411: errorResponse('Content-Length missing (chunked bodies are refused).'),
          413: errorResponse('The file or request exceeds 5 MB.'),
          415: errorResponse('The bytes are not a PNG or JPEG image.'),
          429: tooManyRequestsResponse,
          503: unavailableResponse(
            'Every decode slot is busy and the line waiting for one is full, the index is still loading after start-up, ' +
              'or the database is unreachable: retry after Retry-After seconds.',
          ),
        },
      },
    },
    async (request, reply) => {
      const maxDistance = request.query.maxDistance ?? DEFAULT_SIMILAR_DISTANCE
      const limit = request.query.limit ?? DEFAULT_SIMILAR_LIMIT
      const hash = await hashQueryImage(request)
      const model =
        fastify.readModel.current ?? ((await fastify.readModel.whenReady(INDEX_READY_WAIT_MS)) && fastify.readModel.current)
      if (!model) throw new HttpError(503, 'The image index is still loading; retry shortly.', { 'Retry-After': 5 })
      noStore(reply)
      return { maxDistance, matches: model.similar(hash, maxDistance, limit), rateLimit: request.rateLimit! }
    },
  )
}

/** Encapsulated (its multipart parser stays inside) yet named, so its dependencies are checked at start-up. */
export const similarRoutes = fp(similar, {
  name: 'meme-similar',
  encapsulate: true,
  dependencies: ['app-rate-limit', 'meme-read-model', 'meme-decode-slots', 'meme-shared-schemas'],
})

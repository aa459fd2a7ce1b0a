import { badRequest, noStore, notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { CONTROL_CHARACTERS } from '../captions/providers/text.ts'
import { described, errorResponse } from '../schemas.ts'
import {
  AdminMemeEnvelope,
  AdminMemeList,
  AdminMemeListQuery,
  CaptionJobAccepted,
  commonAdminResponses,
  MemeIdParams,
  MemePatchBody,
} from './schemas.ts'
import { normalizeCatalogName } from './tags-routes.ts'

const notFoundMeme = () => notFound('No such meme (unknown or deleted).')

/** Review and edit memes: list by status, approve, reject, soft-delete, edit caption/tags, recaption. */
export const adminMemesRoutes: FastifyPluginAsyncTypebox<{ rateLimit: RouteRateLimit }> = async (fastify, { rateLimit }) => {
  const admin = fastify.adminRepository
  const config = { rateLimit }
  const withCommon = <T extends object>(responses: T) => ({ ...responses, ...commonAdminResponses })

  fastify.addHook('onSend', async (_request, reply) => {
    noStore(reply)
  })

  fastify.get(
    '/api/admin/memes',
    {
      config,
      schema: {
        operationId: 'adminListMemes',
        summary: 'List memes for review',
        description:
          'Full records of live (not deleted) memes, newest first, optionally of one status. A page beyond the last is clamped.',
        tags: ['admin'],
        querystring: AdminMemeListQuery,
        response: withCommon({
          200: described(AdminMemeList, 'One page of memes.'),
          400: errorResponse('Invalid query parameter.'),
        }),
      },
    },
    async (request) => admin.list(request.query.status, request.query.page, request.query.pageSize),
  )

  fastify.get(
    '/api/admin/memes/:id',
    {
      config,
      schema: {
        operationId: 'adminGetMeme',
        summary: 'Get one meme (any status)',
        tags: ['admin'],
        params: MemeIdParams,
        response: withCommon({
          200: described(AdminMemeEnvelope, 'The meme (after the change, if any).'),
          400: errorResponse('Invalid id.'),
          404: errorResponse('Unknown or deleted meme.'),
        }),
      },
    },
    async (request) => {
      const meme = await admin.find(request.params.id)
      if (!meme) throw notFoundMeme()
      return { meme }
    },
  )

  fastify.get(
    '/api/admin/memes/:id/media',
    {
      config,
      schema: {
        operationId: 'adminGetMedia',
        summary: 'Fetch the image of a meme of any status',
        description: 'The stored WebP, also for pending and rejected memes (the public /media/{id} serves approved ones only).',
        tags: ['admin'],
        params: MemeIdParams,
        response: withCommon({
          200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', 'x-response-description': 'image/webp bytes.' }),
          400: errorResponse('Invalid id.'),
          404: errorResponse('Unknown or deleted meme.'),
        }),
      },
    },
    async (request, reply) => {
      const bytes = await admin.findImage(request.params.id)
      if (!bytes) throw notFoundMeme()
      return reply.type('image/webp').header('X-Content-Type-Options', 'nosniff').send(bytes)
    },
  )

  async function moveTo(actor: string, id: string, to: 'approved' | 'rejected') {
    if (!(await fastify.memeUseCases.setStatus(actor, id, to))) throw notFoundMeme()
    return { meme: (await admin.find(id))! }
  }

  for (const [verb, to] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    fastify.post(
      `/api/admin/memes/:id/${verb}`,
      {
        config,
        schema: {
          operationId: verb === 'approve' ? 'adminApproveMeme' : 'adminRejectMeme',
          summary: verb === 'approve' ? 'Approve a meme (publish it)' : 'Reject a meme (hide it from the public)',
          description: `Sets status to ${to} from any other status; already ${to}: no change, same answer.`,
          tags: ['admin'],
          params: MemeIdParams,
          response: withCommon({
            200: described(AdminMemeEnvelope, 'The meme (after the change, if any).'),
            400: errorResponse('Invalid id.'),
            404: errorResponse('Unknown or deleted meme.'),
          }),
        },
      },
      async (request) => moveTo(request.adminActor!, request.params.id, to),
    )
  }

  fastify.delete(
    '/api/admin/memes/:id',
    {
      config,
      schema: {
        operationId: 'adminDeleteMeme',
        summary: 'Delete a meme (soft delete)',
        description: 'Sets deleted_at: the meme disappears from every listing and read; the row stays for the audit trail.',
        tags: ['admin'],
        params: MemeIdParams,
        response: withCommon({
          204: Type.Null({ 'x-response-description': 'Deleted.' }),
          400: errorResponse('Invalid id.'),
          404: errorResponse('Unknown or already deleted meme.'),
        }),
      },
    },
    async (request, reply) => {
      if (!(await fastify.memeUseCases.delete(request.adminActor!, request.params.id))) throw notFoundMeme()
      return reply.code(204).send(null)
    },
  )

  fastify.patch(
    '/api/admin/memes/:id',
    {
      config,
      schema: {
        operationId: 'adminUpdateMeme',
        summary: 'Edit caption and/or tags',
        description:
          'caption (max 2000 characters, trimmed) and/or tags (the complete new list; each must exist in the catalog). ' +
          'An edit wins over a caption job queued before it.',
        tags: ['admin'],
        params: MemeIdParams,
        body: MemePatchBody,
        response: withCommon({
          200: described(AdminMemeEnvelope, 'The meme (after the change, if any).'),
          400: errorResponse('Invalid body, or tags missing from the catalog.'),
          404: errorResponse('Unknown or deleted meme.'),
        }),
      },
    },
    async (request) => {
      const { id } = request.params
      const caption = request.body.caption?.trim()
      if (caption !== undefined && new RegExp(CONTROL_CHARACTERS.source).test(caption)) {
        throw badRequest("Invalid body field 'caption': contains control characters.")
      }
      const tags = request.body.tags && [...new Set(request.body.tags.map(normalizeCatalogName))]
      const outcome = await fastify.memeUseCases.edit(request.adminActor!, id, { caption, tags })
      if (outcome === 'not-found') throw notFoundMeme()
      if (outcome !== 'edited') {
        const unknown = outcome.unknownTags.join(', ')
        throw badRequest(`Unknown tags: ${unknown}. Add them to the catalog first (POST /api/admin/tags).`)
      }
      return { meme: (await admin.find(id))! }
    },
  )

  fastify.post(
    '/api/admin/memes/:id/recaption',
    {
      config,
      schema: {
        operationId: 'adminRecaptionMeme',
        summary: 'Caption a meme again',
        description: 'Queues a caption job; its result replaces caption and tags (an edit made before this call is overwritten).',
        tags: ['admin'],
        params: MemeIdParams,
        response: withCommon({
          202: described(CaptionJobAccepted, 'The caption job was queued.'),
          400: errorResponse('Invalid id.'),
          404: errorResponse('Unknown or deleted meme.'),
        }),
      },
    },
    async (request, reply) => {
      const job = await fastify.memeUseCases.recaption(request.adminActor!, request.params.id)
      if (!job) throw notFoundMeme()
      return reply.code(202).send({ job: { id: job.id, state: job.state, runAt: job.runAt.toISOString() } })
    },
  )
}

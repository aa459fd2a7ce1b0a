import { badRequest, noStore, notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { createCaptionJobsRepository } from '../captions/jobs.ts'
import { CONTROL_CHARACTERS } from '../captions/providers/text.ts'
import { described, errorResponse } from '../schemas.ts'
import { createTagsRepository } from '../tags/repository.ts'
import { createAdminRepository } from './repository.ts'
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

type Status = 'pending' | 'approved' | 'rejected'

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

  async function moveTo(actor: string, id: string, to: Status) {
    const from = await fastify.db.transaction(async (tx) => {
      const repo = createAdminRepository(tx)
      const current = await repo.lock(id)
      if (current && current !== to) {
        await repo.setStatus(id, to)
        await repo.audit({
          actor,
          action: to === 'approved' ? 'meme.approve' : 'meme.reject',
          memeId: id,
          detail: { from: current, to },
        })
      }
      return current
    })
    if (!from) throw notFoundMeme()
    if (from !== to) await fastify.readModel.memeChanged(id)
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
      const { id } = request.params
      const found = await fastify.db.transaction(async (tx) => {
        const repo = createAdminRepository(tx)
        const status = await repo.lock(id)
        if (!status) return false
        await repo.softDelete(id)
        await repo.audit({ actor: request.adminActor!, action: 'meme.delete', memeId: id, detail: { status } })
        return true
      })
      if (!found) throw notFoundMeme()
      await fastify.readModel.memeChanged(id)
      return reply.code(204).send(null)
    },
  )

  fastify.patch(
    '/api/admin/memes/:id',
    {
      config,
      schema: {
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
      const found = await fastify.db.transaction(async (tx) => {
        const repo = createAdminRepository(tx)
        if (!(await repo.lock(id))) return false
        const detail: Record<string, unknown> = {}
        if (tags) {
          const known = new Set(await createTagsRepository(tx).existing(tags))
          const unknown = tags.filter((t) => !known.has(t))
          if (unknown.length > 0) {
            throw badRequest(`Unknown tags: ${unknown.join(', ')}. Add them to the catalog first (POST /api/admin/tags).`)
          }
          detail.tags = { from: await repo.setTags(id, tags), to: [...tags].sort() }
        }
        if (caption !== undefined) {
          await repo.setCaption(id, caption)
          detail.caption = caption
        }
        await repo.audit({ actor: request.adminActor!, action: 'meme.edit', memeId: id, detail })
        return true
      })
      if (!found) throw notFoundMeme()
      await fastify.readModel.memeChanged(id)
      return { meme: (await admin.find(id))! }
    },
  )

  fastify.post(
    '/api/admin/memes/:id/recaption',
    {
      config,
      schema: {
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
      const { id } = request.params
      const job = await fastify.db.transaction(async (tx) => {
        const repo = createAdminRepository(tx)
        if (!(await repo.lock(id))) return null
        const queued = await createCaptionJobsRepository(tx).enqueue(id)
        await repo.audit({ actor: request.adminActor!, action: 'meme.recaption', memeId: id, detail: { jobId: queued.id } })
        return queued
      })
      if (!job) throw notFoundMeme()
      await fastify.captionJobs.notify(id)
      return reply.code(202).send({ job: { id: job.id, state: job.state, runAt: job.runAt.toISOString() } })
    },
  )
}

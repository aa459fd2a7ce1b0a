import { badRequest, conflict, noStore, notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { MAX_TAG_LENGTH } from '../memes/schemas.ts'
import { described, errorResponse } from '../schemas.ts'
import { foldTagName } from '../tags/repository.ts'
import { AdminTag, AdminTagList, commonAdminResponses, TagCreateBody, TagNameParams } from './schemas.ts'

/** Catalog names: NFC, trimmed, inner whitespace collapsed, lowercase, 1..60 characters, no control characters. */
export function normalizeCatalogName(raw: string): string {
  const name = foldTagName(raw)
  if (name.length === 0) throw badRequest('Tag name is empty.')
  if (Array.from(name).length > MAX_TAG_LENGTH) throw badRequest(`Tag name is longer than ${MAX_TAG_LENGTH} characters.`)
  if (/[\p{Cc}\p{Cf}]/u.test(name)) throw badRequest('Tag name contains control characters.')
  return name
}

/** The tag catalog: list with usage counts, add, remove (also from every meme). */
export const adminTagsRoutes: FastifyPluginAsyncTypebox<{ rateLimit: RouteRateLimit }> = async (fastify, { rateLimit }) => {
  const config = { rateLimit }
  const withCommon = <T extends object>(responses: T) => ({ ...responses, ...commonAdminResponses })

  fastify.addHook('onSend', async (_request, reply) => {
    noStore(reply)
  })

  fastify.get(
    '/api/admin/tags',
    {
      config,
      schema: {
        operationId: 'adminListTags',
        summary: 'List the tag catalog with usage counts',
        tags: ['admin'],
        response: withCommon({ 200: described(AdminTagList, 'The catalog, sorted by name.') }),
      },
    },
    async () => ({ tags: await fastify.adminRepository.listTags() }),
  )

  fastify.post(
    '/api/admin/tags',
    {
      config,
      schema: {
        operationId: 'adminAddTag',
        summary: 'Add a tag to the catalog',
        description: 'The name is trimmed and lowercased (1..60 characters after that); names are unique.',
        tags: ['admin'],
        body: TagCreateBody,
        response: withCommon({
          201: described(Type.Object({ tag: AdminTag }), 'The tag was added.'),
          400: errorResponse('Invalid name.'),
          409: errorResponse('The tag already exists, or the name is an alias of a tag.'),
        }),
      },
    },
    async (request, reply) => {
      const name = normalizeCatalogName(request.body.name)
      const created = await fastify.memeUseCases.createTag(request.adminActor!, name)
      if (!created) throw conflict(`Tag "${name}" already exists.`)
      if ('aliasOf' in created) throw conflict(`"${name}" is an alias of tag "${created.aliasOf}".`)
      const tag = { name: created.name, createdAt: created.createdAt.toISOString(), memeCount: 0, aliases: [] }
      return reply.code(201).send({ tag })
    },
  )

  fastify.delete(
    '/api/admin/tags/:name',
    {
      config,
      schema: {
        operationId: 'adminRemoveTag',
        summary: 'Remove a tag from the catalog and from every meme',
        description: 'The memes that carried it are re-indexed at once; its aliases are removed with it.',
        tags: ['admin'],
        params: TagNameParams,
        response: withCommon({
          204: Type.Null({ 'x-response-description': 'Removed.' }),
          400: errorResponse('Invalid name.'),
          404: errorResponse('No such tag.'),
        }),
      },
    },
    async (request, reply) => {
      const name = normalizeCatalogName(request.params.name)
      if (!(await fastify.memeUseCases.deleteTag(request.adminActor!, name))) throw notFound(`No tag named "${name}".`)
      return reply.code(204).send(null)
    },
  )
}

import { conflict, noStore, notFound, type RouteRateLimit } from '@app/common'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { described, errorResponse } from '../schemas.ts'
import { MAX_ALIASES_PER_TAG } from '../tags/use-cases.ts'
import { AliasCreateBody, commonAdminResponses, TagAlias, TagAliasList, TagAliasParams, TagNameParams } from './schemas.ts'
import { normalizeCatalogName } from './tags-routes.ts'

/** Aliases of catalog tags: list, add (never shadowing a tag or another alias), remove. */
export const adminAliasesRoutes: FastifyPluginAsyncTypebox<{ rateLimit: RouteRateLimit }> = async (fastify, { rateLimit }) => {
  const config = { rateLimit }
  const withCommon = <T extends object>(responses: T) => ({ ...responses, ...commonAdminResponses })

  fastify.addHook('onSend', async (_request, reply) => {
    noStore(reply)
  })

  fastify.get(
    '/api/admin/tag-aliases',
    {
      config,
      schema: {
        operationId: 'adminListTagAliases',
        summary: 'List every tag alias',
        tags: ['admin'],
        response: withCommon({ 200: described(TagAliasList, 'Every alias with its tag, sorted by alias.') }),
      },
    },
    async () => {
      const aliases = await fastify.tags.aliases()
      return { aliases: aliases.map((a) => ({ alias: a.alias, tag: a.tag, createdAt: a.createdAt.toISOString() })) }
    },
  )

  fastify.post(
    '/api/admin/tags/:name/aliases',
    {
      config,
      schema: {
        operationId: 'adminAddTagAlias',
        summary: 'Give a catalog tag an alias',
        description:
          'The alias follows the tag name rules (trimmed, lowercased, 1..60 characters). A tag filter or query word ' +
          `naming it finds the tag's memes; /api/tags still lists the tag alone. At most ${MAX_ALIASES_PER_TAG} per tag.`,
        tags: ['admin'],
        params: TagNameParams,
        body: AliasCreateBody,
        response: withCommon({
          201: described(Type.Object({ alias: TagAlias }), 'The alias was added.'),
          400: errorResponse('Invalid tag name or alias.'),
          404: errorResponse('No such tag.'),
          409: errorResponse(
            `The alias is a tag name or already an alias (of this or another tag), or the tag has ${MAX_ALIASES_PER_TAG} aliases.`,
          ),
        }),
      },
    },
    async (request, reply) => {
      const tag = normalizeCatalogName(request.params.name)
      const alias = normalizeCatalogName(request.body.alias)
      const outcome = await fastify.tagUseCases.addAlias(request.adminActor!, tag, alias)
      if ('missingTag' in outcome) throw notFound(`No tag named "${tag}".`)
      if ('tooMany' in outcome) throw conflict(`Tag "${tag}" already has ${MAX_ALIASES_PER_TAG} aliases.`)
      if ('shadows' in outcome) {
        if (outcome.shadows === 'tag') throw conflict(`"${alias}" is a tag; an alias cannot shadow it.`)
        throw conflict(`"${alias}" is already an alias of tag "${outcome.aliasOf}".`)
      }
      const { added } = outcome
      return reply.code(201).send({ alias: { alias: added.alias, tag: added.tag, createdAt: added.createdAt.toISOString() } })
    },
  )

  fastify.delete(
    '/api/admin/tags/:name/aliases/:alias',
    {
      config,
      schema: {
        operationId: 'adminRemoveTagAlias',
        summary: 'Remove an alias of a catalog tag',
        tags: ['admin'],
        params: TagAliasParams,
        response: withCommon({
          204: Type.Null({ 'x-response-description': 'Removed.' }),
          400: errorResponse('Invalid tag name or alias.'),
          404: errorResponse('The tag has no such alias.'),
        }),
      },
    },
    async (request, reply) => {
      const tag = normalizeCatalogName(request.params.name)
      const alias = normalizeCatalogName(request.params.alias)
      if (!(await fastify.tagUseCases.removeAlias(request.adminActor!, tag, alias)))
        throw notFound(`Tag "${tag}" has no alias "${alias}".`)
      return reply.code(204).send(null)
    },
  )
}

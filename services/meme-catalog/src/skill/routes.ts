import type { FastifyPluginAsync } from 'fastify'
import type { Config } from '../config.ts'
import { renderSkill } from './render.ts'

// Rendering calls the API a dozen times: reuse the text for a while.
const CACHE_MS = 10_000

export const skillRoutes: FastifyPluginAsync<{ config: Config }> = async (fastify, { config }) => {
  let cached: { text: string; at: number } | undefined
  let rendering: Promise<string> | undefined

  async function current(): Promise<string> {
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.text
    rendering ??= renderSkill({ fastify, config })
      .then((text) => {
        cached = { text, at: Date.now() }
        return text
      })
      .finally(() => {
        rendering = undefined
      })
    return rendering
  }

  fastify.get(
    '/meme-api.skill.md',
    {
      schema: {
        operationId: 'getSkillInstructions',
        summary: 'Instructions for language-model clients',
        description: 'Markdown: the endpoints with real example requests and responses, search semantics, limits, errors.',
        tags: ['discovery'],
        response: {
          200: {
            'x-response-description': 'The instructions.',
            headers: { 'Cache-Control': { type: 'string', description: 'public, max-age=60' } },
            content: { 'text/markdown': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      const text = await current()
      return reply.type('text/markdown; charset=utf-8').header('Cache-Control', 'public, max-age=60').send(text)
    },
  )
}

import type { FastifyInstance } from 'fastify'

/** Tells the public read model and search index that a meme changed (no-op before the read side exists). */
export async function memeChanged(fastify: FastifyInstance, memeId: string): Promise<void> {
  if (fastify.hasDecorator('searchSync')) await fastify.searchSync.memeChanged(memeId)
}

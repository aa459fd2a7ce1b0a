import { createHash, randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'

export interface MemeFixture {
  caption?: string
  tags?: string[]
  status?: 'approved' | 'pending' | 'rejected'
  deleted?: boolean
  /** Minutes before now (larger = older). */
  ageMinutes?: number
  originalName?: string
}

let tinyWebp: Buffer | undefined

/** A real (small) WebP image. */
export async function webpBytes(): Promise<Buffer> {
  tinyWebp ??= await sharp({ create: { width: 8, height: 6, channels: 3, background: '#36c' } })
    .webp()
    .toBuffer()
  return tinyWebp
}

/**
 * Stores a meme as the upload pipeline would (row, media and tags in one transaction; tags are
 * added to the catalog), then tells the read side. Returns its id.
 */
export async function addMeme(app: FastifyInstance, fixture: MemeFixture = {}): Promise<string> {
  const id = createHash('sha256').update(randomBytes(16)).digest('hex')
  const bytes = await webpBytes()
  const tags = fixture.tags ?? []
  await app.db.transaction(async (tx) => {
    for (const tag of tags) await tx.query('INSERT INTO tags (name) VALUES ($1) ON CONFLICT DO NOTHING', [tag])
    await tx.query(
      `INSERT INTO memes (id, created_at, status, deleted_at, byte_size, width, height, original_mime, original_name,
         moderation_score, moderation_reason, caption)
       VALUES ($1, now() - make_interval(mins => $2), $3, CASE WHEN $4 THEN now() END, $5, 8, 6, 'image/png', $6, 3, 'fixture', $7)`,
      [
        id,
        fixture.ageMinutes ?? 0,
        fixture.status ?? 'approved',
        fixture.deleted ?? false,
        bytes.length,
        fixture.originalName ?? 'fixture.png',
        fixture.caption ?? '',
      ],
    )
    await tx.query('INSERT INTO meme_media (meme_id, bytes) VALUES ($1, $2)', [id, bytes])
    for (const tag of tags) await tx.query('INSERT INTO meme_tags (meme_id, tag) VALUES ($1, $2)', [id, tag])
  })
  await app.readModel.memeChanged(id)
  return id
}

/** Resolves once `check` holds, polling every 20 ms; rejects after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 3000): Promise<number> {
  const started = Date.now()
  for (;;) {
    if (await check()) return Date.now() - started
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The read model is built in the background: tests that read right after start wait for it. */
export async function ready(app: FastifyInstance) {
  if (!(await app.readModel.whenReady(10_000))) throw new Error('read model not ready')
}

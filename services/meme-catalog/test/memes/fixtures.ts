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
  /** 0..100 (default 3). */
  moderationScore?: number
  /** Image bytes (default: a small WebP); width and height must be given with them. */
  image?: { webp: Buffer; width: number; height: number }
}

let tinyWebp: Buffer | undefined

/** A real (small) WebP image. */
export async function webpBytes(): Promise<Buffer> {
  tinyWebp ??= await sharp({ create: { width: 8, height: 6, channels: 3, background: '#36c' } })
    .webp()
    .toBuffer()
  return tinyWebp
}

/** Stores a meme through the write side (row, media and tags; tags join the catalog). Returns its id. */
export async function addMeme(app: FastifyInstance, fixture: MemeFixture = {}): Promise<string> {
  const id = createHash('sha256').update(randomBytes(16)).digest('hex')
  const bytes = fixture.image?.webp ?? (await webpBytes())
  // Without an age the database clock stamps it, like an upload.
  const createdAt = fixture.ageMinutes === undefined ? undefined : new Date(Date.now() - fixture.ageMinutes * 60_000)
  await app.memeUseCases.insert([
    {
      id,
      status: fixture.status ?? 'approved',
      createdAt,
      deletedAt: fixture.deleted ? new Date() : null,
      byteSize: bytes.length,
      width: fixture.image?.width ?? 8,
      height: fixture.image?.height ?? 6,
      originalMime: 'image/png',
      originalName: fixture.originalName ?? 'fixture.png',
      moderationScore: fixture.moderationScore ?? 3,
      moderationReason: 'fixture',
      caption: fixture.caption ?? '',
      webp: bytes,
      tags: fixture.tags ?? [],
    },
  ])
  return id
}

/** The read model is built in the background: tests that read right after start wait for it. */
export async function ready(app: FastifyInstance) {
  if (!(await app.readModel.whenReady(10_000))) throw new Error('read model not ready')
}

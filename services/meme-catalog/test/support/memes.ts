import { createHash } from 'node:crypto'
import type { Queryable } from '@app/common'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string)

/**
 * A classic meme as a WebP: a busy background with big white, black-outlined text at the top and
 * bottom (what the OCR captioner is built for). Different texts give different bytes.
 */
export async function renderMeme(top: string, bottom = '', { width = 800, height = 600 } = {}): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#5a8f6b"/><stop offset="1" stop-color="#c07a3d"/></linearGradient></defs>
  <rect width="${width}" height="${height}" fill="url(#g)"/>
  <circle cx="${width / 2}" cy="${height / 2}" r="${height / 4}" fill="#ececec"/>
  <rect x="${width / 3}" y="${height / 2.4}" width="${width / 3}" height="${height / 5}" fill="#fafafa"/>
  <g font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" font-size="52" fill="#ffffff" stroke="#000000"
     stroke-width="4" paint-order="stroke" text-anchor="middle">
    <text x="${width / 2}" y="80">${escapeXml(top)}</text>
    <text x="${width / 2}" y="${height - 36}">${escapeXml(bottom)}</text>
  </g></svg>`
  return sharp(Buffer.from(svg)).webp({ quality: 82 }).toBuffer()
}

/** A small distinct image without text (queue tests that do not look at the picture). */
export async function plainImage(seed: number): Promise<Buffer> {
  const colour = `#${(((seed + 1) * 2654435761) % 0xffffff).toString(16).padStart(6, '0')}`
  return sharp({ create: { width: 32, height: 32, channels: 3, background: colour } })
    .webp({ lossless: true })
    .toBuffer()
}

export interface InsertMemeOptions {
  status?: 'approved' | 'pending' | 'rejected'
  caption?: string
  tags?: string[]
  nearDuplicateOf?: string[]
  phash?: string | null
  name?: string
  createdAt?: Date
  /** Also queue a caption job (as the upload does). */
  job?: boolean
}

/** Stores a meme through the write side (row, media, tags, optional job); returns its id. */
export async function insertMeme(app: FastifyInstance, image: Buffer, options: InsertMemeOptions = {}): Promise<string> {
  const id = createHash('sha256').update(image).digest('hex')
  const meta = await sharp(image).metadata()
  await app.memeUseCases.insert([
    {
      id,
      status: options.status ?? 'approved',
      createdAt: options.createdAt,
      byteSize: image.byteLength,
      width: meta.width,
      height: meta.height,
      originalMime: 'image/png',
      originalName: options.name ?? `${id.slice(0, 8)}.png`,
      moderationScore: 3,
      moderationReason: 'Neutral 97%',
      caption: options.caption ?? '',
      phash: options.phash ?? null,
      nearDuplicateOf: options.nearDuplicateOf ?? [],
      webp: image,
      tags: options.tags ?? [],
      captionJob: options.job ?? false,
    },
  ])
  return id
}

export async function addTags(db: Queryable, ...names: string[]): Promise<void> {
  for (const name of names) await db.query('INSERT INTO tags (name) VALUES ($1) ON CONFLICT DO NOTHING', [name])
}

export async function jobsOf(db: Queryable, memeId: string) {
  const { rows } = await db.query<{
    id: number
    state: string
    attempts: number
    last_error: string | null
    run_at: Date
    updated_at: Date
  }>('SELECT id, state, attempts, last_error, run_at, updated_at FROM caption_jobs WHERE meme_id = $1 ORDER BY id', [memeId])
  return rows
}

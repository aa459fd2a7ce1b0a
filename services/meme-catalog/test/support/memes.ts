import { createHash } from 'node:crypto'
import type { Queryable } from '@app/common'
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

/** Stores a meme as the upload pipeline would (row, media, tags, optional job); returns its id. */
export async function insertMeme(db: Queryable, image: Buffer, options: InsertMemeOptions = {}): Promise<string> {
  const id = createHash('sha256').update(image).digest('hex')
  const meta = await sharp(image).metadata()
  await db.query(
    `INSERT INTO memes (id, status, byte_size, width, height, original_mime, original_name, moderation_score,
       moderation_reason, caption, phash, near_duplicate_of, created_at)
     VALUES ($1, $2, $3, $4, $5, 'image/png', $6, 3, 'Neutral 97%', $7, $8, $9::text[], coalesce($10::timestamptz, now()))`,
    [
      id,
      options.status ?? 'approved',
      image.byteLength,
      meta.width,
      meta.height,
      options.name ?? `${id.slice(0, 8)}.png`,
      options.caption ?? '',
      options.phash ?? null,
      options.nearDuplicateOf ?? [],
      options.createdAt ?? null,
    ],
  )
  await db.query('INSERT INTO meme_media (meme_id, bytes) VALUES ($1, $2)', [id, image])
  for (const tag of options.tags ?? []) {
    await db.query('INSERT INTO tags (name) VALUES ($1) ON CONFLICT DO NOTHING', [tag])
    await db.query('INSERT INTO meme_tags (meme_id, tag) VALUES ($1, $2)', [id, tag])
  }
  if (options.job) await db.query('INSERT INTO caption_jobs (meme_id) VALUES ($1)', [id])
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

/** Polls `check` until it returns a truthy value (the worker runs asynchronously). */
export async function eventually<T>(
  check: () => Promise<T>,
  { timeoutMs = 30_000, intervalMs = 25 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

import { createHash } from 'node:crypto'
import type { RenditionSet } from '../media/rendition-store.ts'
import { RENDITION_NAMES, renditionSize } from '../media/renditions.ts'
import type { PublicMemeRecord } from '../memes/repository.ts'
import type { MemeT } from '../memes/schemas.ts'
import { textMatches } from '../search/highlight.ts'
import { parseQuery } from '../search/normalize.ts'

/**
 * The skill file's example catalog. Fixed on purpose: an uploaded name, caption or tag shown to a
 * language-model client could carry instructions to it, so no stored content reaches the file.
 */
function exampleMeme(day: number, caption: string, tags: string[], originalName: string): MemeT {
  const id = createHash('sha256').update(`skill example ${caption}`).digest('hex')
  return {
    id,
    createdAt: `2026-01-0${day}T12:00:00.000Z`,
    byteSize: 48_000 + day * 1_337,
    width: 800,
    height: 600,
    mime: 'image/webp',
    originalMime: originalName.endsWith('.png') ? 'image/png' : 'image/jpeg',
    status: 'approved',
    moderationScore: 2 + day,
    moderationReason: 'Safe for work (drawing or neutral photo).',
    viewCount: 40 * day,
    downloadCount: day,
    originalName,
    url: `/media/${id}`,
    downloadUrl: `/media/${id}?download=1`,
    demo: true,
    caption,
    tags,
  }
}

/** Newest first, as the list answers without q. */
export const EXAMPLE_MEMES: readonly MemeT[] = [
  exampleMeme(3, 'When the build is green on the first try', ['coding'], 'green-build.png'),
  exampleMeme(2, 'Cat knocks the coffee off the desk', ['cats', 'coffee'], 'cat-coffee.jpg'),
  exampleMeme(1, 'Crème brûlée for breakfast, no regrets', ['food'], 'breakfast.png'),
]

/** The searched meme and its accented word, as a client would type it (folded), a typo of it and a prefix. */
export const SEARCH_EXAMPLE = { meme: EXAMPLE_MEMES[2], word: 'brulee', typo: 'brxlee', prefix: 'brul' }
export const TAG_EXAMPLE = { meme: EXAMPLE_MEMES[1], tag: 'coffee' }
export const EXAMPLE_TAGS = ['cats', 'coding', 'coffee', 'food']

/** What of a meme matches `query`, as GET /api/memes/{id}?highlight= answers, with a made-up OCR box per word. */
export function exampleMatch(meme: MemeT, query: string) {
  const matched = textMatches(meme.caption, meme.tags, parseQuery(query))
  // Laid out along the top line of the 800 x 600 example image.
  const boxes = matched.caption.map(({ start, end }) => ({
    text: meme.caption.slice(start, end),
    start,
    end,
    x: 40 + start * 24,
    y: 40,
    w: (end - start) * 36,
    h: 52,
  }))
  return { ...matched, boxes }
}

export interface ExampleBudget {
  limit: number
  remaining: number
  resetAt: string
}

/** A read budget that goes down by one per example, as a client's would. */
export function exampleBudgets(limit: number): () => ExampleBudget {
  let spent = 0
  return () => ({ limit, remaining: Math.max(0, limit - ++spent), resetAt: '2026-01-03T12:01:00.000Z' })
}

export function examplePage(memes: readonly MemeT[], pageSize: number, rateLimit: ExampleBudget) {
  const total = memes.length
  return {
    page: 1,
    pageSize,
    total,
    totalPages: Math.ceil(total / pageSize),
    memes: memes.slice(0, pageSize),
    rateLimit,
  }
}

/** The GIPHY examples' origin (GIF objects carry absolute URLs) and response id. */
export const EXAMPLE_BASE_URL = 'https://memes.example.org'
export const EXAMPLE_RESPONSE_ID = createHash('sha1').update('skill example response').digest('hex')

/** An example meme as the read model holds it. */
export function exampleRecord(meme: MemeT): PublicMemeRecord {
  const { createdAt, mime, status, url, downloadUrl, ...rest } = meme
  return { ...rest, createdAt: Date.parse(createdAt) }
}

/** Example rendition sizes (a real rendition's bytes depend on the image). */
export function exampleRenditions(meme: MemeT): RenditionSet {
  return new Map(
    RENDITION_NAMES.map((name) => {
      const size = renditionSize(name, meme)
      return [name, { ...size, size: Math.round((size.width * size.height) / 12) }]
    }),
  )
}

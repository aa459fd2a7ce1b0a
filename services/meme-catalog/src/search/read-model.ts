import type { MemeT } from '../memes/schemas.ts'
import { createSearchIndex } from './engine.ts'
import type { MemeSearchIndex } from './types.ts'

interface Entry {
  meme: MemeT
  /** JSON of `meme`, built on first use and dropped on change: list pages are concatenations of these. */
  json?: string
}

export interface PageRequest {
  q?: string
  tags: string[]
  page: number
  pageSize: number
}

export interface Page {
  page: number
  pageSize: number
  total: number
  totalPages: number
  memes: MemeT[]
  /** The memes array as JSON (from the per-meme cache). */
  memesJson: string
}

/**
 * The public read model: every approved, non-deleted meme held in memory with its search index,
 * so list, search and get-by-id never touch the database. One instance per app; replaced whole
 * (build then swap) on a full resync.
 */
export class ReadModel {
  private entries = new Map<string, Entry>()
  private index: MemeSearchIndex

  constructor(memes: MemeT[] = []) {
    this.index = createSearchIndex()
    for (const meme of memes) this.upsert(meme)
  }

  /** Builds in slices, yielding to the event loop between them so health and other requests keep answering. */
  static async build(memes: MemeT[], slice = 2000): Promise<ReadModel> {
    const model = new ReadModel()
    for (let start = 0; start < memes.length; start += slice) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve))
      const end = Math.min(memes.length, start + slice)
      for (let i = start; i < end; i++) model.upsert(memes[i])
    }
    return model
  }

  get size(): number {
    return this.entries.size
  }

  get(id: string): MemeT | undefined {
    return this.entries.get(id)?.meme
  }

  upsert(meme: MemeT): void {
    this.entries.set(meme.id, { meme })
    this.index.upsert({ id: meme.id, caption: meme.caption, tags: meme.tags, createdAt: Date.parse(meme.createdAt) })
  }

  remove(id: string): void {
    this.entries.delete(id)
    this.index.remove(id)
  }

  /** Counters change often and touch neither caption nor tags: no re-indexing. */
  setCounts(id: string, viewCount: number, downloadCount: number): void {
    const entry = this.entries.get(id)
    if (!entry) return
    entry.meme = { ...entry.meme, viewCount, downloadCount }
    entry.json = undefined
  }

  /** One page; a page past the last is clamped to the last (page 1 when nothing matches). */
  list({ q, tags, page, pageSize }: PageRequest): Page {
    let result = this.index.search({ q, tags, offset: (page - 1) * pageSize, limit: pageSize })
    const totalPages = Math.ceil(result.total / pageSize)
    let served = page
    if (totalPages === 0) served = 1
    else if (page > totalPages) {
      served = totalPages
      result = this.index.search({ q, tags, offset: (served - 1) * pageSize, limit: pageSize })
    }
    const memes: MemeT[] = []
    const parts: string[] = []
    for (const id of result.ids) {
      const entry = this.entries.get(id)
      if (!entry) continue
      entry.json ??= JSON.stringify(entry.meme)
      memes.push(entry.meme)
      parts.push(entry.json)
    }
    return { page: served, pageSize, total: result.total, totalPages, memes, memesJson: `[${parts.join(',')}]` }
  }
}

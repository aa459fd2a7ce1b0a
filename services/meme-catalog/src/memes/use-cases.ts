import type { Database, Queryable } from '@app/common'
import type { FastifyBaseLogger } from 'fastify'
import { type CaptionJobRecord, type ClaimedJob, createCaptionJobsRepository } from '../captions/jobs.ts'
import type { CaptionResult } from '../captions/providers/types.ts'
import { createCaptionsRepository } from '../captions/repository.ts'
import { createCaptionWordsRepository } from '../captions/words-repository.ts'
import { CAPTION_CHANNEL } from '../captions/worker.ts'
import type { ReadModelReplica } from '../search/replica.ts'
import { createTagsRepository } from '../tags/repository.ts'
import type { MemeRow } from './repository.ts'
import { createMemeWriteRepository, type MemeStatus, type NewMeme } from './write-repository.ts'

// Past this many changed memes one full reload of the read model is cheaper than re-reading each.
const BULK_REINDEX = 100
// Rows per INSERT statement of a batch (one JSON parameter each).
const INSERT_CHUNK = 5000

/** The outcome of storing an upload: moderation's decision applied, or an identical upload stored first. */
export type UploadOutcome<T> = { stored: MemeRow; admitted: T } | { rejected: true; admitted: T } | { duplicate: true }

export type EditOutcome = 'edited' | 'not-found' | { unknownTags: string[] }

export interface MemeEdit {
  caption?: string
  /** The complete new list, normalized and without repeats. */
  tags?: string[]
}

/** What the write side tells the read model after each commit. */
export type ReadModelNotifier = Pick<ReadModelReplica, 'memeChanged' | 'catalogChanged' | 'aliasesChanged'>

export interface InsertOptions {
  /** Runs first in the transaction (locks, checks); false inserts nothing. */
  prepare?: (tx: Queryable) => Promise<boolean>
}

/** Thrown inside a transaction to roll it back; carries what the caller answers with. */
class Rollback<T> extends Error {
  constructor(readonly outcome: T) {
    super('rolled back')
  }
}

async function rollbackTo<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof Rollback) return error.outcome as T
    throw error
  }
}

/**
 * Every change of a meme, each in one transaction with its lock and audit row; after the commit
 * the read model (every instance's) and the caption workers are told.
 */
export function createMemeUseCases(db: Database, readModel: ReadModelNotifier, log: FastifyBaseLogger) {
  async function changed(ids: string[]) {
    if (ids.length > BULK_REINDEX) await readModel.catalogChanged()
    else for (const id of ids) await readModel.memeChanged(id)
  }

  /** Wakes the caption workers of every instance (they also poll: a lost notification only delays). */
  async function captionJobQueued(memeId: string) {
    try {
      await db.notify(CAPTION_CHANNEL, memeId)
    } catch (error) {
      log.warn({ err: error, memeId }, 'caption job stored; notifying the workers failed')
    }
  }

  /** Stores memes with their media, tags and caption jobs; the rows inserted (ids already stored are skipped). */
  async function store(tx: Queryable, given: NewMeme[]): Promise<MemeRow[]> {
    const writes = createMemeWriteRepository(tx)
    const memes = await withCanonicalTags(tx, given)
    await writes.addToCatalog([...new Set(memes.flatMap((m) => m.tags ?? []))])
    const rows: MemeRow[] = []
    for (let start = 0; start < memes.length; start += INSERT_CHUNK) {
      rows.push(...(await writes.insert(memes.slice(start, start + INSERT_CHUNK))))
    }
    const inserted = new Set(rows.map((r) => r.id))
    const fresh = memes.filter((m) => inserted.has(m.id))
    const links = fresh.flatMap((m) => (m.tags ?? []).map((tag) => [m.id, tag] as const))
    await writes.link(
      links.map(([id]) => id),
      links.map(([, tag]) => tag),
    )
    for (const meme of fresh) {
      if (meme.webp) await writes.insertMedia(meme.id, meme.webp)
      if (meme.captionJob) await createCaptionJobsRepository(tx).enqueue(meme.id)
    }
    return rows
  }

  /** The memes with each tag that is an alias replaced by its tag (a new name would shadow the alias). */
  async function withCanonicalTags(tx: Queryable, memes: NewMeme[]): Promise<NewMeme[]> {
    const names = [...new Set(memes.flatMap((m) => m.tags ?? []))]
    if (names.length === 0) return memes
    const named = await createTagsRepository(tx).resolve(names)
    return memes.map((m) => (m.tags ? { ...m, tags: [...new Set(m.tags.map((t) => named.get(t) ?? t))] } : m))
  }

  async function afterInsert(memes: NewMeme[], rows: MemeRow[]) {
    const ids = new Set(rows.map((r) => r.id))
    const stored = memes.filter((m) => ids.has(m.id))
    for (const meme of stored) if (meme.captionJob) await captionJobQueued(meme.id)
    // Only approved, live memes are public; others reach the index when an admin approves them.
    await changed(stored.filter((m) => m.status === 'approved' && !m.deletedAt).map((m) => m.id))
  }

  return {
    /**
     * Applies moderation's decision to an upload after `admit` (quota check and charge) in the same
     * transaction: rejected bytes are remembered, anything else is stored with a caption job.
     */
    async upload<T>(upload: NewMeme, admit: (tx: Queryable) => Promise<T>): Promise<UploadOutcome<T>> {
      const meme = { ...upload, captionJob: true }
      const outcome = await rollbackTo(
        db.transaction(async (tx): Promise<UploadOutcome<T>> => {
          const admitted = await admit(tx)
          if (meme.status === 'rejected') {
            await createMemeWriteRepository(tx).rememberRejected(meme.id, meme.moderationScore, meme.moderationReason)
            return { rejected: true, admitted }
          }
          const [row] = await store(tx, [meme])
          // Identical bytes stored concurrently: undo the quota charge, the stored one answers.
          if (!row) throw new Rollback<UploadOutcome<T>>({ duplicate: true })
          return { stored: row, admitted }
        }),
      )
      if ('stored' in outcome) await afterInsert([meme], [outcome.stored])
      return outcome
    },

    /** Stores memes in batches (demo data, benchmarks, tests); returns how many were new. */
    async insert(memes: NewMeme[], { prepare }: InsertOptions = {}): Promise<number> {
      const rows = await db.transaction(async (tx) => {
        if (prepare && !(await prepare(tx))) return []
        return store(tx, memes)
      })
      await afterInsert(memes, rows)
      return rows.length
    },

    /**
     * Bulk load of rows without media or caption jobs (benchmark corpora, imports into an empty catalog): batches
     * go in through COPY, all in one transaction, then every instance reloads its read model. Unlike insert() an id
     * already stored fails the whole load. Returns how many memes were stored. Into an empty catalog the tag links'
     * foreign keys are checked once at the end (most of a link's cost otherwise; meme_tags is locked meanwhile):
     * a link to a missing meme or tag still fails the whole load.
     */
    async bulkLoad(batches: AsyncIterable<NewMeme[]> | Iterable<NewMeme[]>): Promise<number> {
      const stored = await db.transaction(async (tx) => {
        const writes = createMemeWriteRepository(tx)
        const { rows } = await tx.query<{ now: Date | string }>('SELECT now() AS now')
        const now = new Date(rows[0].now)
        const restoreForeignKeys = (await writes.catalogEmpty()) ? await writes.suspendLinkForeignKeys() : async () => {}
        let count = 0
        for await (const memes of batches) {
          if (memes.some((m) => m.webp || m.captionJob)) throw new Error('bulkLoad stores neither media nor caption jobs')
          await writes.addToCatalog([...new Set(memes.flatMap((m) => m.tags ?? []))])
          count += await writes.copy(memes, now)
          const links = memes.flatMap((m) => [...new Set(m.tags ?? [])].map((tag) => [m.id, tag] as const))
          await writes.copyLinks(
            links.map(([id]) => id),
            links.map(([, tag]) => tag),
          )
        }
        await restoreForeignKeys()
        return count
      })
      if (stored > 0) await readModel.catalogChanged()
      return stored
    },

    /** Approves or rejects a live meme; returns its previous status, or null when missing or deleted. */
    async setStatus(actor: string, id: string, to: 'approved' | 'rejected'): Promise<MemeStatus | null> {
      const from = await db.transaction(async (tx) => {
        const writes = createMemeWriteRepository(tx)
        const current = await writes.lock(id)
        if (current && current !== to) {
          await writes.setStatus(id, to)
          const action = to === 'approved' ? 'meme.approve' : 'meme.reject'
          await writes.audit({ actor, action, memeId: id, detail: { from: current, to } })
        }
        return current
      })
      if (from && from !== to) await changed([id])
      return from
    },

    /** Soft-deletes a live meme (the row stays for the audit trail); false when missing or deleted. */
    async delete(actor: string, id: string): Promise<boolean> {
      const found = await db.transaction(async (tx) => {
        const writes = createMemeWriteRepository(tx)
        const status = await writes.lock(id)
        if (!status) return false
        await writes.softDelete(id)
        await writes.audit({ actor, action: 'meme.delete', memeId: id, detail: { status } })
        return true
      })
      if (found) await changed([id])
      return found
    },

    /** An admin's edit of caption and/or tags (tags must be in the catalog); it wins over earlier caption jobs. */
    async edit(actor: string, id: string, { caption, tags }: MemeEdit): Promise<EditOutcome> {
      const outcome = await rollbackTo(
        db.transaction(async (tx): Promise<EditOutcome> => {
          const writes = createMemeWriteRepository(tx)
          if (!(await writes.lock(id))) return 'not-found'
          const detail: Record<string, unknown> = {}
          if (tags) {
            // An alias stands for its tag.
            const named = await createTagsRepository(tx).resolve(tags)
            const unknownTags = tags.filter((t) => !named.has(t))
            if (unknownTags.length > 0) throw new Rollback<EditOutcome>({ unknownTags })
            const canonical = [...new Set(tags.map((t) => named.get(t) as string))]
            detail.tags = { from: await writes.setTags(id, canonical), to: canonical.sort() }
          }
          if (caption !== undefined) {
            await writes.setCaption(id, caption)
            detail.caption = caption
          }
          await writes.audit({ actor, action: 'meme.edit', memeId: id, detail })
          return 'edited'
        }),
      )
      if (outcome === 'edited') await changed([id])
      return outcome
    },

    /** Queues a new caption job for a live meme; null when missing or deleted. */
    async recaption(actor: string, id: string): Promise<CaptionJobRecord | null> {
      const job = await db.transaction(async (tx) => {
        const writes = createMemeWriteRepository(tx)
        if (!(await writes.lock(id))) return null
        const queued = await createCaptionJobsRepository(tx).enqueue(id)
        await writes.audit({ actor, action: 'meme.recaption', memeId: id, detail: { jobId: queued.id } })
        return queued
      })
      if (job) await captionJobQueued(id)
      return job
    },

    /**
     * A captioner's result for a job this worker still owns: replaces the caption unless an admin edited the meme
     * after the job was queued. The tags replace the meme's, except on a meme pending review: there the model's
     * proposals are stored as suggestions (OCR matches are found again when the review is read). True when the meme changed.
     */
    async captioned(job: ClaimedJob, result: CaptionResult, source: 'ocr' | 'openai'): Promise<boolean> {
      const written = await db.transaction(async (tx) => {
        const queue = createCaptionJobsRepository(tx)
        if (!(await queue.lockOwned(job))) return false
        if (await createCaptionsRepository(tx).editedByAdminSince(job.memeId, job.createdAt)) {
          await queue.complete(job, 'kept the admin edit made after this job was queued')
          return false
        }
        const writes = createMemeWriteRepository(tx)
        const pending = (await writes.lock(job.memeId)) === 'pending'
        const tags = pending && source !== 'openai' ? [] : result.tags
        const done = await writes.writeCaption(job.memeId, result.caption, source, tags, { suggestOnly: pending })
        if (done) await createCaptionWordsRepository(tx).replace(job.memeId, result.caption, result.words)
        await queue.complete(job, done ? null : 'meme deleted before captioning')
        return done
      })
      if (written) await changed([job.memeId])
      return written
    },

    /** Adds a tag (already normalized) to the catalog; the new tag, null when it exists, or the tag it is an alias of. */
    async createTag(actor: string, name: string): Promise<{ name: string; createdAt: Date } | { aliasOf: string } | null> {
      return db.transaction(async (tx) => {
        const tags = createTagsRepository(tx)
        await tags.lockNames()
        const aliasOf = await tags.aliasTarget(name)
        if (aliasOf !== null) return { aliasOf }
        if (!(await tags.create(name))) return null
        await createMemeWriteRepository(tx).audit({ actor, action: 'tag.create', detail: { name } })
        return tags.find(name)
      })
    },

    /** Removes a tag from the catalog and from every meme; the memes that carried it, or null when unknown. */
    async deleteTag(actor: string, name: string): Promise<string[] | null> {
      const deleted = await db.transaction(async (tx) => {
        const tags = createTagsRepository(tx)
        await tags.lockNames()
        // Its aliases go with it (cascade).
        const aliases = await tags.aliasesOf(name)
        const { deleted, memeIds } = await tags.delete(name)
        if (!deleted) return null
        const writes = createMemeWriteRepository(tx)
        await writes.touch(memeIds)
        await writes.audit({ actor, action: 'tag.delete', detail: { name, memeIds, aliases } })
        return { memeIds, aliases }
      })
      if (!deleted) return null
      if (deleted.aliases.length > 0) await readModel.aliasesChanged()
      await changed(deleted.memeIds)
      return deleted.memeIds
    },
  }
}

export type MemeUseCases = ReturnType<typeof createMemeUseCases>

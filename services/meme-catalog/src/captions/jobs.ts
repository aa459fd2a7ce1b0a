import type { Queryable } from '@app/common'

export type CaptionJobState = 'queued' | 'running' | 'done' | 'failed'

/** A job as a worker holds it after claiming; `attempts` doubles as the lease token. */
export interface ClaimedJob {
  id: number
  memeId: string
  attempts: number
  createdAt: Date
}

export interface CaptionJobRecord {
  id: number
  memeId: string
  state: CaptionJobState
  attempts: number
  runAt: Date
  lockedUntil: Date | null
  lastError: string | null
  createdAt: Date
  updatedAt: Date
}

interface JobRow {
  id: number
  meme_id: string
  state: CaptionJobState
  attempts: number
  run_at: Date | string
  locked_until: Date | string | null
  last_error: string | null
  created_at: Date | string
  updated_at: Date | string
}

const date = (value: Date | string) => (value instanceof Date ? value : new Date(value))

function toRecord(row: JobRow): CaptionJobRecord {
  return {
    id: Number(row.id),
    memeId: row.meme_id,
    state: row.state,
    attempts: Number(row.attempts),
    runAt: date(row.run_at),
    lockedUntil: row.locked_until === null ? null : date(row.locked_until),
    lastError: row.last_error,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  }
}

// Every write after the claim is fenced on (state, attempts): a worker whose lease expired and was
// reclaimed by another can no longer touch the job.
const OWNED = `id = $1 AND state = 'running' AND attempts = $2`

/** SQL of the caption job queue; takes the database or an open transaction. */
export function createCaptionJobsRepository(db: Queryable) {
  return {
    /** Queues a new job for the meme (a fresh one, so it postdates any admin edit it must not undo). */
    async enqueue(memeId: string): Promise<CaptionJobRecord> {
      const { rows } = await db.query<JobRow>('INSERT INTO caption_jobs (meme_id) VALUES ($1) RETURNING *', [memeId])
      return toRecord(rows[0])
    },

    /**
     * Takes the oldest due job: queued and due, or running with an expired lease (its worker died).
     * SKIP LOCKED lets concurrent workers pass over a row another is claiming at that moment.
     */
    async claim(leaseSeconds: number): Promise<ClaimedJob | null> {
      const { rows } = await db.query<JobRow>(
        `UPDATE caption_jobs SET state = 'running', attempts = attempts + 1,
           locked_until = now() + $1::double precision * interval '1 second', updated_at = now()
         WHERE id = (
           SELECT id FROM caption_jobs
           WHERE (state = 'queued' AND run_at <= now()) OR (state = 'running' AND locked_until < now())
           ORDER BY run_at, id
           LIMIT 1
           FOR UPDATE SKIP LOCKED
         )
         RETURNING *`,
        [leaseSeconds],
      )
      const row = rows[0]
      return row
        ? { id: Number(row.id), memeId: row.meme_id, attempts: Number(row.attempts), createdAt: date(row.created_at) }
        : null
    },

    /** Locks the job row if this worker still owns it (inside the transaction that applies the result). */
    async lockOwned(job: ClaimedJob): Promise<boolean> {
      const { rows } = await db.query(`SELECT id FROM caption_jobs WHERE ${OWNED} FOR UPDATE`, [job.id, job.attempts])
      return rows.length > 0
    },

    async complete(job: ClaimedJob, note: string | null = null): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE caption_jobs SET state = 'done', locked_until = NULL, last_error = $3, updated_at = now() WHERE ${OWNED}`,
        [job.id, job.attempts, note],
      )
      return rowCount > 0
    },

    /** Schedules another attempt after `delayMs`. */
    async retry(job: ClaimedJob, error: string, delayMs: number): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE caption_jobs SET state = 'queued', locked_until = NULL, last_error = $3,
           run_at = now() + $4::double precision * interval '1 millisecond', updated_at = now()
         WHERE ${OWNED}`,
        [job.id, job.attempts, error, delayMs],
      )
      return rowCount > 0
    },

    async fail(job: ClaimedJob, error: string): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE caption_jobs SET state = 'failed', locked_until = NULL, last_error = $3, updated_at = now() WHERE ${OWNED}`,
        [job.id, job.attempts, error],
      )
      return rowCount > 0
    },

    /** Gives a job back on shutdown: queued again at once, the interrupted attempt not counted. */
    async release(job: ClaimedJob): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE caption_jobs SET state = 'queued', attempts = attempts - 1, locked_until = NULL, run_at = now(), updated_at = now()
         WHERE ${OWNED}`,
        [job.id, job.attempts],
      )
      return rowCount > 0
    },

    async get(id: number): Promise<CaptionJobRecord | null> {
      const { rows } = await db.query<JobRow>('SELECT * FROM caption_jobs WHERE id = $1', [id])
      return rows[0] ? toRecord(rows[0]) : null
    },

    async listForMeme(memeId: string): Promise<CaptionJobRecord[]> {
      const { rows } = await db.query<JobRow>('SELECT * FROM caption_jobs WHERE meme_id = $1 ORDER BY id', [memeId])
      return rows.map(toRecord)
    },
  }
}

export type CaptionJobsRepository = ReturnType<typeof createCaptionJobsRepository>

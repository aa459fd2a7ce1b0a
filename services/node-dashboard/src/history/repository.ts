import type { Queryable } from '@app/common'
import { METRIC_NAMES, type MetricSample } from '../dashboard/metrics.ts'

export type HistoryPoint = { t: number } & MetricSample

export interface HistoryRange {
  /** Unix seconds of the window start and end. */
  from: number
  to: number
}

// Column names come from the fixed METRIC_NAMES list only.
const insertSql = `INSERT INTO metrics (sampled_at, ${METRIC_NAMES.join(', ')})
  VALUES ($1, ${METRIC_NAMES.map((_, i) => `$${i + 2}`).join(', ')})`
const averages = METRIC_NAMES.map((name) => `avg(${name})::float8 AS ${name}`).join(', ')
const rollupAverages = METRIC_NAMES.map((name) => `sum(${name}_sum) / nullif(sum(${name}_n), 0) AS ${name}`).join(', ')

// The output bucket of a rollup row: its mean time's slice of [$2, $2 + $5 * $4].
const slotSql = 'GREATEST(0, LEAST(floor((t_sum / n - $2::float8) / $4::float8), $5::int - 1))::int'

/** Bucket widths (seconds) kept in metrics_rollup (migration 004). */
export const ROLLUP_WIDTHS = [60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800, 86400]
// Windows up to 6 hours read the samples themselves (a few thousand rows at most).
const RAW_SPAN_SECONDS = 6 * 3600

/** The rollup width to read for buckets of `bucketSeconds`, or null to read the samples. */
export function rollupWidth(spanSeconds: number, bucketSeconds: number): number | null {
  if (spanSeconds <= RAW_SPAN_SECONDS || bucketSeconds < ROLLUP_WIDTHS[0]) return null
  // The narrowest rollup at least one bucket wide: at most about `limit` rows to read.
  return ROLLUP_WIDTHS.find((w) => w >= bucketSeconds) ?? ROLLUP_WIDTHS[ROLLUP_WIDTHS.length - 1]
}

export function metricsRepository(db: Queryable) {
  return {
    async insert(at: Date, sample: MetricSample): Promise<void> {
      await db.query(insertSql, [at.toISOString(), ...METRIC_NAMES.map((name) => sample[name])])
    },
    async prune(retentionDays: number): Promise<number> {
      const { rowCount } = await db.query('DELETE FROM metrics WHERE sampled_at < now() - make_interval(days => $1)', [
        retentionDays,
      ])
      await db.query(
        'DELETE FROM metrics_rollup WHERE (bucket + 1) * width < extract(epoch FROM now() - make_interval(days => $1))',
        [retentionDays],
      )
      return rowCount
    },
    /** First and last sample times (unix seconds), or null when there are none. */
    async extent(): Promise<HistoryRange | null> {
      const { rows } = await db.query<{ from: number | null; to: number | null }>(
        `SELECT extract(epoch FROM (SELECT min(sampled_at) FROM metrics))::float8 AS "from",
                extract(epoch FROM (SELECT max(sampled_at) FROM metrics))::float8 AS "to"`,
      )
      const row = rows[0]
      return row && row.from !== null && row.to !== null ? { from: row.from, to: row.to } : null
    },
    /**
     * Averages of the samples in `buckets` equal slices of [from, to] as a JSON array of points,
     * oldest first; empty slices are left out, so at most `buckets` points. PostgreSQL writes the
     * JSON itself: 20000 points are never parsed into objects and serialized again here.
     */
    async bucketsJson(range: HistoryRange, buckets: number): Promise<string> {
      const width = Math.max((range.to - range.from) / buckets, 1e-6)
      const level = rollupWidth(range.to - range.from, width)
      return level === null ? samplesJson(range, buckets, width) : rollupJson(range, buckets, width, level)
    },
  }

  async function samplesJson({ from, to }: HistoryRange, buckets: number, width: number): Promise<string> {
    const { rows } = await db.query<{ points: string }>(
      `SELECT coalesce(json_agg(p ORDER BY p.t), '[]')::text AS points FROM (
         SELECT avg(extract(epoch FROM sampled_at))::float8 AS t, ${averages}
         FROM metrics
         WHERE sampled_at >= to_timestamp($1::float8) AND sampled_at <= to_timestamp($2::float8)
         GROUP BY LEAST(floor((extract(epoch FROM sampled_at) - $1::float8) / $3::float8), $4::int - 1)) AS p`,
      [from, to, width, buckets],
    )
    return rows[0].points
  }

  /**
   * From the rollup rows of one width, each already holding its point as JSON (migration 005): a row
   * goes to the output bucket of its mean time, and most buckets take at most one row, so the answer
   * is their stored points joined. Buckets that take several rows are averaged by their sample counts.
   */
  async function rollupJson({ from, to }: HistoryRange, buckets: number, width: number, level: number) {
    const { rows } = await db.query<{ t: number; point: string }>(
      `SELECT t_sum / n AS t, point FROM metrics_rollup
       WHERE width = $1::int AND bucket >= floor($2::float8 / $1::int)::bigint AND bucket <= floor($3::float8 / $1::int)::bigint`,
      [level, from, to],
    )
    // Mean times rise with the bucket: sorting here spares PostgreSQL a sort of wide rows.
    rows.sort((a, b) => a.t - b.t)
    // The same arithmetic as the SQL below, on the exact float8 PostgreSQL sent.
    const slotOf = (t: number) => Math.max(0, Math.min(Math.floor((t - from) / width), buckets - 1))
    const slots = rows.map((row) => slotOf(row.t))
    const shared = new Set<number>()
    for (let i = 1; i < slots.length; i++) if (slots[i] === slots[i - 1]) shared.add(slots[i] as number)
    const merged = new Map<number, string>()
    if (shared.size > 0) {
      const { rows: sums } = await db.query<{ slot: number; point: string }>(
        `SELECT slot, row_to_json(p)::text AS point FROM (
           SELECT ${slotSql} AS slot, sum(t_sum) / sum(n) AS t, ${rollupAverages}
           FROM metrics_rollup
           WHERE width = $1::int AND bucket >= floor($2::float8 / $1::int)::bigint AND bucket <= floor($3::float8 / $1::int)::bigint
             AND ${slotSql} = ANY($6::int[])
           GROUP BY 1) AS p`,
        [level, from, to, width, buckets, [...shared]],
      )
      // The slot is not part of the point.
      for (const row of sums) merged.set(row.slot, row.point.replace(/^\{"slot":-?\d+,/, '{'))
    }
    const parts: string[] = []
    for (let i = 0; i < rows.length; i++) {
      const slot = slots[i] as number
      if (!shared.has(slot)) parts.push((rows[i] as { point: string }).point)
      else if (slot !== slots[i - 1]) parts.push(merged.get(slot) as string)
    }
    return `[${parts.join(',')}]`
  }
}

export type MetricsRepository = ReturnType<typeof metricsRepository>

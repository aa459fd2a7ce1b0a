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
    async bucketsJson({ from, to }: HistoryRange, buckets: number): Promise<string> {
      const width = Math.max((to - from) / buckets, 1e-6)
      const level = rollupWidth(to - from, width)
      // A rollup row goes to the output bucket of its mean time, weighted by its sample counts.
      const inner =
        level !== null
          ? `SELECT sum(t_sum) / sum(n) AS t, ${rollupAverages}
             FROM metrics_rollup
             WHERE width = $5::int AND bucket >= floor($1::float8 / $5::int)::bigint AND bucket <= floor($2::float8 / $5::int)::bigint
             GROUP BY GREATEST(0, LEAST(floor((t_sum / n - $1::float8) / $3::float8), $4::int - 1))`
          : `SELECT avg(extract(epoch FROM sampled_at))::float8 AS t, ${averages}
             FROM metrics
             WHERE sampled_at >= to_timestamp($1::float8) AND sampled_at <= to_timestamp($2::float8) AND $5::int IS NULL
             GROUP BY LEAST(floor((extract(epoch FROM sampled_at) - $1::float8) / $3::float8), $4::int - 1)`
      const { rows } = await db.query<{ points: string }>(
        `SELECT coalesce(json_agg(p ORDER BY p.t), '[]')::text AS points FROM (${inner}) AS p`,
        [from, to, width, buckets, level],
      )
      return rows[0].points
    },
  }
}

export type MetricsRepository = ReturnType<typeof metricsRepository>

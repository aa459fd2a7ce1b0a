import type { Queryable } from '@app/common'
import { METRIC_NAMES, type MetricSample } from '../dashboard/metrics.ts'

export interface HistoryRange {
  /** Unix seconds of the window start and end. */
  from: number
  to: number
}

// Column names come from the fixed METRIC_NAMES list only.
const insertSql = `INSERT INTO metrics (sampled_at, ${METRIC_NAMES.join(', ')})
  VALUES ($1, ${METRIC_NAMES.map((_, i) => `$${i + 2}`).join(', ')})`
/** A point as JSON array text in `fields` order (t, then METRIC_NAMES), like migration 005 stores it. */
function pointSql(t: string, metric: (name: string) => string): string {
  const values = METRIC_NAMES.map((name) => `',' || coalesce((${metric(name)})::text, 'null')`).join(' || ')
  return `'[' || (${t})::text || ${values} || ']'`
}
const samplePointSql = pointSql('avg(extract(epoch FROM sampled_at))::float8', (name) => `avg(${name})::float8`)
// The output bucket of a rollup row ($2 window start, $3 bucket width, $4 bucket count), as rollupJson computes it.
const slotSql = 'GREATEST(0, LEAST(floor((t_sum / n - $2::float8) / $3::float8), $4::int - 1))::int'
// The output bucket of a sample ($1 window start, $3 bucket width, $4 bucket count).
const slotOfSampleSql = 'LEAST(floor((extract(epoch FROM sampled_at) - $1::float8) / $3::float8), $4::int - 1)'
const rollupPointSql = pointSql('sum(t_sum) / sum(n)', (name) => `sum(${name}_sum) / nullif(sum(${name}_n), 0)`)

/** Bucket widths (seconds) kept in metrics_rollup (migration 004). */
const ROLLUP_WIDTHS = [60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800, 86400]
// Windows up to 6 hours read the samples themselves (a few thousand rows at most).
const RAW_SPAN_SECONDS = 6 * 3600
/**
 * Output buckets (or rollup rows) aggregated into one text value. PostgreSQL builds each value whole in the
 * embedded database's WebAssembly heap, which keeps its high-water mark: after the memory bench's workload
 * that heap held 45 MiB with each history answer built as one value, 33 MiB with the rollups read in parts.
 */
export const POINTS_PER_PART = 1000

/** The rollup width to read for buckets of `bucketSeconds`, or null to read the samples. */
export function rollupWidth(spanSeconds: number, bucketSeconds: number): number | null {
  if (spanSeconds <= RAW_SPAN_SECONDS || bucketSeconds < ROLLUP_WIDTHS[0]) return null
  // The narrowest rollup at least one bucket wide: at most about `limit` rows to read.
  return ROLLUP_WIDTHS.find((w) => w >= bucketSeconds) ?? ROLLUP_WIDTHS[ROLLUP_WIDTHS.length - 1]
}

/** The output bucket of a mean time: the same arithmetic as slotSql, on the float8 PostgreSQL sent. */
export const slotOf = (t: number, from: number, width: number, buckets: number) =>
  Math.max(0, Math.min(Math.floor((t - from) / width), buckets - 1))

/** Indexes of `times` in ascending order (as they are when already sorted, the usual case). */
export function timeOrder(times: number[]): number[] {
  const order = times.map((_, i) => i)
  for (let i = 1; i < times.length; i++) {
    if ((times[i] as number) <= (times[i - 1] as number)) return order.sort((a, b) => (times[a] as number) - (times[b] as number))
  }
  return order
}

/**
 * The points, comma-separated, in time order (`order`, from timeOrder): a row alone in its output bucket
 * as stored, a run of rows sharing one (slots rise with time) as that bucket's merged point.
 */
export function joinPoints(points: string[], order: number[], slots: number[], merged: Map<number, string>): string {
  const parts: string[] = []
  for (let k = 0; k < order.length; ) {
    const slot = slots[order[k] as number] as number
    let end = k + 1
    while (end < order.length && slots[order[end] as number] === slot) end++
    if (end - k === 1) parts.push(points[order[k] as number] as string)
    else {
      const point = merged.get(slot)
      // Never an answer with a hole: PostgreSQL grouped these rows with the same arithmetic.
      if (point === undefined) throw new Error(`history: no merged point for output bucket ${slot}`)
      parts.push(point)
    }
    k = end
  }
  return parts.join(',')
}

export function createMetricsRepository(db: Queryable) {
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
     * Averages of the samples in `buckets` equal slices of [from, to] as JSON points, oldest first, in
     * parts: each part a non-empty run of comma-separated points, so `[${parts.join(',')}]` is the array.
     * Empty slices are left out, so at most `buckets` points. PostgreSQL writes the JSON itself: 20000
     * points are never parsed into objects and serialized again here.
     */
    async bucketsJson(range: HistoryRange, buckets: number): Promise<string[]> {
      const width = Math.max((range.to - range.from) / buckets, 1e-6)
      const level = rollupWidth(range.to - range.from, width)
      return level === null ? samplesJson(range, buckets, width) : rollupJson(range, buckets, width, level)
    },
  }

  async function samplesJson({ from, to }: HistoryRange, buckets: number, width: number): Promise<string[]> {
    // One scan and one grouping of the window's samples, then each run of POINTS_PER_PART output buckets
    // joined into a part (buckets rise with time, so parts in bucket order keep time order). Aggregating each
    // part in a query of its own holds less at once, but took 27 % longer over 20000 samples.
    const { rows } = await db.query<{ points: string }>(
      `SELECT string_agg(point, ',' ORDER BY t) AS points FROM (
         SELECT ${slotOfSampleSql} AS slot, avg(extract(epoch FROM sampled_at))::float8 AS t, ${samplePointSql} AS point
         FROM metrics
         WHERE sampled_at >= to_timestamp($1::float8) AND sampled_at <= to_timestamp($2::float8)
         GROUP BY 1) AS p
       GROUP BY floor(slot / $5::int) ORDER BY floor(slot / $5::int)`,
      [from, to, width, buckets, POINTS_PER_PART],
    )
    return rows.map((row) => row.points)
  }

  /**
   * From the rollup rows of one width, each holding its point as JSON (migration 005): a row goes to
   * the output bucket of its mean time, and most buckets take at most one row, so the answer is their
   * stored points joined. Buckets that take several rows are averaged by their sample counts.
   */
  async function rollupJson({ from, to }: HistoryRange, buckets: number, width: number, level: number) {
    // Parts of the points and, in the same order (one aggregation pass per part), the rows' mean times, each
    // part aggregated alone so PostgreSQL holds one part at a time: 12500 rows cost a few messages, not 12500.
    // Rows within a part come in scan order: sorting them costs PostgreSQL more than sorting 12500 numbers here
    // when the scan is out of order.
    const { rows } = await db.query<{ part: number; points: string; times: string }>(
      `SELECT s.part::int AS part, p.points, p.times
       FROM generate_series(floor($2::float8 / $1::int)::bigint, floor($3::float8 / $1::int)::bigint, $4::bigint)
         WITH ORDINALITY AS s(first, part),
       LATERAL (
         SELECT string_agg(point, ',') AS points, string_agg((t_sum / n)::text, ',') AS times
         FROM metrics_rollup
         WHERE width = $1::int AND bucket >= s.first AND bucket < s.first + $4::bigint
           AND bucket <= floor($3::float8 / $1::int)::bigint) AS p
       WHERE p.points IS NOT NULL`,
      [level, from, to, POINTS_PER_PART],
    )
    // A nested loop returns the parts in order; sorting 20 numbers makes it certain.
    rows.sort((a, b) => a.part - b.part)
    const parts = rows.map((row) => row.points)
    const times = rows.flatMap((row) => row.times.split(',').map(Number))
    const slots = times.map((t) => slotOf(t, from, width, buckets))
    const order = timeOrder(times)
    const shared: number[] = []
    for (let k = 1; k < order.length; k++) {
      const [i, j] = [order[k] as number, order[k - 1] as number]
      if (slots[i] === slots[j]) shared.push(times[i] as number, times[j] as number)
    }
    // The usual case: rows already in time order, one per output bucket; the strings PostgreSQL sent are the
    // answer, no copy of them (megabytes) is made here.
    if (shared.length === 0 && order.every((i, k) => i === k)) return parts
    const merged = shared.length > 0 ? await mergedPoints(shared, { from, buckets, width, level }) : new Map()
    // A point is a flat array of numbers: '],[' only ever separates two of them.
    const points = parts
      .join(',')
      .slice(1, -1)
      .split('],[')
      .map((point) => `[${point}]`)
    return [joinPoints(points, order, slots, merged)]
  }

  /** The averaged point of each output bucket that takes several rollup rows (given by their mean times). */
  async function mergedPoints(
    times: number[],
    { from, buckets, width, level }: { from: number; buckets: number; width: number; level: number },
  ): Promise<Map<number, string>> {
    // A row's mean time lies in its own bucket; one either side covers float rounding at the edges.
    const candidates = [...new Set(times.flatMap((t) => [-1, 0, 1].map((d) => Math.floor(t / level) + d)))]
    const slots = [...new Set(times.map((t) => slotOf(t, from, width, buckets)))]
    const { rows } = await db.query<{ slot: number; point: string }>(
      `SELECT ${slotSql} AS slot, ${rollupPointSql} AS point
       FROM metrics_rollup WHERE width = $1::int AND bucket = ANY($5::bigint[]) AND ${slotSql} = ANY($6::int[])
       GROUP BY 1`,
      [level, from, width, buckets, candidates, slots],
    )
    return new Map(rows.map((row) => [row.slot, row.point]))
  }
}

export type MetricsRepository = ReturnType<typeof createMetricsRepository>

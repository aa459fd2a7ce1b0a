import t from 'tap'
import { joinPoints, POINTS_PER_PART, rollupWidth, slotOf, timeOrder } from '../../src/history/repository.ts'
import { build } from '../helper.ts'

const { test } = t

test('slotOf: equal slices of the window, the end clamped into the last one', async (t) => {
  t.equal(slotOf(100, 100, 10, 5), 0)
  t.equal(slotOf(119.9, 100, 10, 5), 1)
  t.equal(slotOf(150, 100, 10, 5), 4, 'the window end belongs to the last bucket')
  t.equal(slotOf(99, 100, 10, 5), 0, 'a row starting before the window goes to the first')
})

test('joinPoints: time order whatever the input order; shared buckets give their merged point once', async (t) => {
  const join = (points: string[], times: number[], slots: number[], merged = new Map<number, string>()) =>
    joinPoints(points, timeOrder(times), slots, merged)
  t.equal(join(['[3]', '[1]', '[2]'], [3, 1, 2], [2, 0, 1]), '[1],[2],[3]')
  t.equal(join(['[3]', '[1.5]', '[1]'], [3, 1.5, 1], [1, 0, 0], new Map([[0, '[1.25]']])), '[1.25],[3]')
  t.equal(join(['[1]', '[2]', '[3]', '[4]'], [1, 2, 3, 4], [0, 1, 1, 1], new Map([[1, '[3]']])), '[1],[3]')
  t.equal(join([], [], []), '')
  t.throws(() => join(['[1]', '[2]'], [1, 2], [0, 0]), /no merged point/)
})

test('timeOrder: the identity when sorted, else ascending indexes', async (t) => {
  t.same(timeOrder([1, 2, 3]), [0, 1, 2])
  t.same(timeOrder([5, 1, 3]), [1, 2, 0])
})

test('rollupWidth: samples up to 6 hours or for narrow buckets, else the narrowest rollup a bucket wide', async (t) => {
  t.equal(rollupWidth(6 * 3600, 100), null)
  t.equal(rollupWidth(86400, 30), null)
  t.equal(rollupWidth(86400, 60), 60)
  t.equal(rollupWidth(15e6, 750), 1200)
  t.equal(rollupWidth(1e9, 1e6), 86400, 'wider than every rollup: the widest')
})

test('bucketsJson: large answers come in parts that join to the one array PostgreSQL would aggregate', async (t) => {
  const app = await build(t)
  // On an hour, so the two-minute rollup holds exactly 2,160 rows.
  const t0 = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3 * 86400
  // A sample a minute for three days, the later half first (rollup rows stored out of time order), and a
  // sample a second in the hour before them.
  for (const [first, last] of [
    [2160, 4319],
    [0, 2159],
  ]) {
    await app.db.query(
      `INSERT INTO metrics (sampled_at, height, mempool_tx)
       SELECT to_timestamp($1::float8 + 60 * i), i, CASE WHEN i % 3 = 0 THEN i ELSE NULL END
       FROM generate_series($2::int, $3::int) AS i`,
      [t0, first, last],
    )
  }
  await app.db.query(
    `INSERT INTO metrics (sampled_at, height) SELECT to_timestamp($1::float8 + i), i FROM generate_series(0, 3599) AS i`,
    [t0 - 7200],
  )
  const points = async (from: number, to: number, limit: number) => {
    const parts = await app.metrics.bucketsJson({ from, to }, limit)
    t.ok(parts.length > 1, `${parts.length} parts of at most ${POINTS_PER_PART} points`)
    t.ok(
      parts.every((part) => part.startsWith('[') && part.endsWith(']')),
      'each part a run of points',
    )
    return JSON.parse(`[${parts.join(',')}]`) as number[][]
  }

  // The hour of samples (read from the samples), more buckets than samples: one point a sample.
  const raw = await points(t0 - 7200, t0 - 3601, 20000)
  const { rows } = await app.db.query<{ t: number; height: number }>(
    `SELECT extract(epoch FROM sampled_at)::float8 AS t, height FROM metrics WHERE sampled_at < to_timestamp($1::float8)
     ORDER BY sampled_at`,
    [t0],
  )
  t.equal(raw.length, 3600)
  t.same(
    raw.map((p) => [p[0], p[1]]),
    rows.map((r) => [r.t, r.height]),
    'every sample, oldest first',
  )

  // The three days at 4000 buckets of 65 s: the two-minute rollup's 2,160 rows, one point each.
  const rolled = await points(t0, t0 + 60 * 4319, 4000)
  const reference = await app.db.query<{ points: string }>(
    `SELECT '[' || string_agg(point, ',' ORDER BY t_sum / n) || ']' AS points FROM metrics_rollup
     WHERE width = 120 AND bucket >= floor($1::float8 / 120)`,
    [t0],
  )
  t.equal(rolled.length, 2160)
  t.same(rolled, JSON.parse(reference.rows[0]?.points ?? '[]'), 'the rollup rows in time order, as stored')
})

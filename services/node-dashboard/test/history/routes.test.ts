import t from 'tap'
import { HISTORY_FIELDS } from '../../src/history/schemas.ts'
import { build, login } from '../helper.ts'

// One instance for the file; each test starts from empty metrics.
const app = await build(t)
const cookie = await login(app)
const { test } = t
t.beforeEach(async () => {
  await app.db.query('DELETE FROM metrics')
  await app.db.query('DELETE FROM metrics_rollup')
})

/** The answer with its points as objects, once their format holds: rows of values in the order of `fields`. */
function named(body: any): any {
  if (JSON.stringify(body.fields) !== JSON.stringify(HISTORY_FIELDS)) throw new Error(`fields: ${body.fields}`)
  const bad = body.points.find((p: unknown) => !Array.isArray(p) || p.length !== HISTORY_FIELDS.length)
  if (bad) throw new Error(`a point is not a row of ${HISTORY_FIELDS.length} values: ${JSON.stringify(bad)}`)
  const points = body.points.map((p: unknown[]) => Object.fromEntries(HISTORY_FIELDS.map((f, i) => [f, p[i]])))
  return { ...body, points }
}

/** `count` samples evenly spread over the last `spanSeconds`, height = index (oldest 0). */
async function seed(count: number, spanSeconds: number) {
  await app.db.query(
    `INSERT INTO metrics (sampled_at, height, mempool_tx, wallet_balance)
     SELECT now() - make_interval(secs => $2::float8 * ($1 - 1 - i) / $1), i, i * 2, NULL
     FROM generate_series(0, $1 - 1) AS i`,
    [count, spanSeconds],
  )
}

test('history downsamples to at most limit bucket averages, oldest first, echoing window and limit', async (t) => {
  await seed(1000, 7000)
  const res = await app.inject({ method: 'GET', url: '/api/dashboard/history?window=2h&limit=10', headers: { cookie } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const body = named(res.json())
  t.equal(body.window, '2h')
  t.equal(body.limit, 10)
  t.equal(body.bucket_seconds, 720)
  t.ok(body.points.length <= 10 && body.points.length >= 9, `${body.points.length} points`)
  for (let i = 1; i < body.points.length; i++) t.ok(body.points[i].t > body.points[i - 1].t, 'oldest first')
  const heights = body.points.map((p: { height: number }) => p.height)
  // Every bucket holds ~100 consecutive samples: their mean height rises by ~100 per bucket.
  t.ok(Math.abs(heights.at(-1) - 949.5) < 60, `last bucket mean ${heights.at(-1)}`)
  t.ok(
    body.points.every((p: { mempool_tx: number; height: number }) => Math.abs(p.mempool_tx - 2 * p.height) < 1e-6),
    'each column averages the same samples',
  )
  t.equal(body.points[0].wallet_balance, null, 'a metric never reported stays null')
  const total = body.points.length
  t.ok(total > 0)

  const path = await app.inject({ method: 'GET', url: '/api/dashboard/history/30m?limit=5', headers: { cookie } })
  t.match(path.json(), { window: '30m', limit: 5 })
  const recent = named(path.json()).points
  t.ok(recent.length <= 5 && recent.length > 0)
  t.ok(recent[0].height >= 740, 'only the last 30 minutes')
})

test('defaults, limit clamping and the all window', async (t) => {
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } })
  const empty = (await get('/api/dashboard/history')).json()
  t.same(empty, {
    window: '30m',
    limit: 500,
    from: empty.from,
    to: empty.to,
    bucket_seconds: 3.6,
    fields: HISTORY_FIELDS,
    points: [],
  })
  t.same((await get('/api/dashboard/history/all')).json(), {
    window: 'all',
    limit: 500,
    from: null,
    to: null,
    bucket_seconds: null,
    fields: HISTORY_FIELDS,
    points: [],
  })
  await seed(300, 600)
  t.equal((await get('/api/dashboard/history?limit=0')).json().limit, 1)
  t.equal((await get('/api/dashboard/history?limit=-7')).json().limit, 1)
  t.equal((await get('/api/dashboard/history?limit=20000')).json().limit, 20000)
  const huge = named((await get('/api/dashboard/history/5m?limit=999999')).json())
  t.equal(huge.limit, 20000)
  t.ok(huge.points.length <= 150 && huge.points.length > 100, 'never more points than samples')
  const one = named((await get('/api/dashboard/history/all?limit=1')).json())
  t.equal(one.points.length, 1)
  t.ok(Math.abs(one.points[0].height - 149.5) < 1e-6, 'one bucket is the mean of every sample')
  const all = named((await get('/api/dashboard/history?window=all&limit=3')).json())
  t.equal(all.points.length, 3)
  t.ok(Date.parse(all.to) - Date.parse(all.from) > 590_000, 'all spans the first to the last sample')
})

test('unknown window and bad limits answer 422', async (t) => {
  for (const url of [
    '/api/dashboard/history?window=1h',
    '/api/dashboard/history/1d',
    '/api/dashboard/history/ALL',
    '/api/dashboard/history?limit=abc',
    '/api/dashboard/history/5m?limit=1.5',
  ]) {
    const res = await app.inject({ method: 'GET', url, headers: { cookie } })
    t.equal(res.statusCode, 422, url)
    t.match(res.json().detail, /window|limit/, url)
  }
})

test('long windows read the pre-aggregated rollups: bucket averages stay exact, at most limit points', async (t) => {
  const t0 = Math.floor(Date.now() / 1000) - 3 * 86400
  // A sample a minute for three days whose height grows with time, so any average of samples
  // must equal the height at the samples' mean time. The later half first: the rollup rows are then
  // stored out of time order, as after a backfill, and the read must still put them in order.
  for (const [first, last] of [
    [2160, 4319],
    [0, 2159],
  ]) {
    await app.db.query(
      `INSERT INTO metrics (sampled_at, height, mempool_tx, fee_rate_6)
       SELECT to_timestamp($1::float8 + 60 * i), i, CASE WHEN i % 2 = 0 THEN 10 ELSE NULL END, i / 100.0
       FROM generate_series($2::int, $3::int) AS i`,
      [t0, first, last],
    )
  }
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM metrics_rollup WHERE width = 3600')
  t.ok(rows[0].n >= 72, 'the insert trigger filled the hourly rollup')
  for (const limit of [100, 7, 1]) {
    const body = named(
      (await app.inject({ method: 'GET', url: `/api/dashboard/history/all?limit=${limit}`, headers: { cookie } })).json(),
    )
    t.ok(
      body.points.length <= limit && body.points.length >= Math.min(limit, 30) / 2,
      `${body.points.length} points for limit ${limit}`,
    )
    for (const [i, p] of body.points.entries()) {
      if (i > 0) t.ok(p.t > body.points[i - 1].t, 'oldest first')
      t.ok(Math.abs(p.height - (p.t - t0) / 60) < 1e-3, `bucket ${i} of ${limit}: height ${p.height} matches its mean time`)
      t.equal(p.mempool_tx, 10, 'a column with gaps averages only its values')
      t.ok(Math.abs(p.fee_rate_6 - p.height / 100) < 1e-6, `bucket ${i}: the fee estimate column rolls up like the others`)
      t.equal(p.fee_rate_144, null)
    }
  }
})

test('rollup rows that share an output bucket are averaged by their sample counts', async (t) => {
  const t0 = Math.floor(Date.now() / 1000 / 3600) * 3600 - 4 * 86400
  // Per even hour boundary: one sample 30 s before it (the end of one hourly row) and two 30 s after
  // it (the start of the next), so neighbouring rows have mean times a minute apart; height = offset.
  await app.db.query(
    `INSERT INTO metrics (sampled_at, height, mempool_tx)
     SELECT to_timestamp($1::float8 + o), o, 7
     FROM (SELECT 7200 * j + d AS o FROM generate_series(1, 35) AS j, unnest(ARRAY[-30, 30, 31]) AS d) AS s`,
    [t0],
  )
  // A last sample making the span 110 buckets of exactly 2400 s: each pair sits at the start of one.
  const last = 7200 - 30 + 110 * 2400
  await app.db.query('INSERT INTO metrics (sampled_at, height, mempool_tx) VALUES (to_timestamp($1::float8), $2, 7)', [
    t0 + last,
    last,
  ])
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM metrics_rollup WHERE width = 3600')
  const body = named(
    (await app.inject({ method: 'GET', url: '/api/dashboard/history/all?limit=110', headers: { cookie } })).json(),
  )
  t.equal(rows[0].n, 71, 'two hourly rows per boundary and one for the last sample')
  t.equal(body.points.length, 36, 'each pair of rows is one point')
  for (const [i, p] of body.points.entries()) {
    // One sample at -30 and two at +30/+31: the mean of the three, not of the two rows.
    const mean = i < 35 ? 7200 * (i + 1) + 31 / 3 : last
    t.ok(Math.abs(p.t - (t0 + mean)) < 1e-6, `point ${i} is at its samples' mean time`)
    t.ok(Math.abs(p.height - mean) < 1e-6, `point ${i} averages its samples`)
    t.equal(p.mempool_tx, 7)
    t.same(Object.keys(p), Object.keys(body.points[0]), 'merged points have the same fields')
  }
})

test('the all window answer is reused until a sample is added', async (t) => {
  await seed(100, 1000)
  const get = async () =>
    named((await app.inject({ method: 'GET', url: '/api/dashboard/history/all?limit=5', headers: { cookie } })).json())
  const first = await get()
  t.same(await get(), first)
  await app.db.query("INSERT INTO metrics (sampled_at, height) VALUES (now() + interval '1 second', 100000)")
  const next = await get()
  t.not(next.to, first.to)
  t.ok(next.points.at(-1).height > first.points.at(-1).height, 'the new sample is in the answer')
})

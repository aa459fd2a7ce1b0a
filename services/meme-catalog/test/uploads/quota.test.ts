import { test } from 'tap'
import { buildApp, pngImage, uploadRequest } from './fixtures.ts'

type App = Awaited<ReturnType<typeof buildApp>>

async function events(app: App): Promise<number> {
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM upload_events')
  return Number(rows[0].n)
}

test('per-IP hourly quota: counts down, 429 when spent; duplicates and refused files use none', async (t) => {
  const app = await buildApp(t, { UPLOAD_QUOTA_HOUR: '2' })
  const first = await app.inject(uploadRequest(await pngImage(10)))
  t.equal(first.statusCode, 201, first.body)
  t.same(first.json().quota, { remainingHour: 1, remainingDay: 49, remainingGlobalDay: 999 })
  const refused = await app.inject(uploadRequest(Buffer.from('GIF89a not really'), { filename: 'x.png' }))
  t.equal(refused.statusCode, 415)
  const second = await app.inject(uploadRequest(await pngImage(11)))
  t.equal(second.statusCode, 201)
  t.same(second.json().quota, { remainingHour: 0, remainingDay: 48, remainingGlobalDay: 998 })

  const third = await app.inject(uploadRequest(await pngImage(12)))
  t.equal(third.statusCode, 429)
  t.match(third.json(), { error: /2 uploads per hour/ })
  const retryAfter = Number(third.headers['retry-after'])
  t.ok(retryAfter > 3500 && retryAfter <= 3600, `Retry-After ${retryAfter} is when the oldest upload leaves the hour`)

  const duplicate = await app.inject(uploadRequest(await pngImage(10)))
  t.equal(duplicate.statusCode, 201, 'identical bytes answer with the stored meme even when the quota is spent')
  t.equal(duplicate.json().meme.id, first.json().meme.id)
  t.same(duplicate.json().quota, { remainingHour: 0, remainingDay: 48, remainingGlobalDay: 998 })
  t.equal(await events(app), 2, 'only the two stored uploads were charged')
})

test('per-IP daily quota counts uploads older than an hour', async (t) => {
  const app = await buildApp(t, { UPLOAD_QUOTA_HOUR: '10', UPLOAD_QUOTA_DAY: '3' })
  await app.db.query(
    `INSERT INTO upload_events (ip, created_at) VALUES ('10.0.0.5', now() - interval '2 hours'), ('10.0.0.5', now() - interval '3 hours'),
       ('10.0.0.5', now() - interval '25 hours'), ('10.0.0.6', now() - interval '1 minute')`,
  )
  const ok = await app.inject(uploadRequest(await pngImage(20), { ip: '10.0.0.5' }))
  t.equal(ok.statusCode, 201, ok.body)
  t.same(
    ok.json().quota,
    { remainingHour: 9, remainingDay: 0, remainingGlobalDay: 996 },
    'three uploads of the last day plus this one',
  )
  const spent = await app.inject(uploadRequest(await pngImage(21), { ip: '10.0.0.5' }))
  t.equal(spent.statusCode, 429)
  t.match(spent.json(), { error: /3 uploads per day/ })
  const retryAfter = Number(spent.headers['retry-after'])
  t.ok(retryAfter > 20 * 3600 && retryAfter <= 21 * 3600, `Retry-After ${retryAfter}: the 3-hour-old upload leaves the day first`)
  const other = await app.inject(uploadRequest(await pngImage(22), { ip: '10.0.0.7' }))
  t.equal(other.statusCode, 201, 'another address has its own quota')
})

test('IPv6 uploaders share one quota per /64 network; the meme keeps the full address', async (t) => {
  const app = await buildApp(t, { UPLOAD_QUOTA_HOUR: '2' })
  for (const [n, ip] of [
    [40, '2001:db8:5:6::1'],
    [41, '2001:db8:5:6:ffff::2'],
  ] as const) {
    const res = await app.inject(uploadRequest(await pngImage(n), { ip }))
    t.equal(res.statusCode, 201, res.body)
  }
  const spent = await app.inject(uploadRequest(await pngImage(42), { ip: '2001:db8:5:6:1234::3' }))
  t.equal(spent.statusCode, 429, 'another address of the same /64 finds the quota spent')
  t.match(spent.json(), { error: /2 uploads per hour/ })
  const other = await app.inject(uploadRequest(await pngImage(43), { ip: '2001:db8:5:7::1' }))
  t.equal(other.statusCode, 201, 'the next /64 has its own quota')
  const { rows } = await app.db.query<{ uploader_ip: string }>('SELECT uploader_ip FROM memes ORDER BY uploader_ip')
  t.ok(
    rows.some((row) => row.uploader_ip === '2001:db8:5:6::1'),
    'the stored meme records the address it came from',
  )
})

test('global daily quota applies across addresses', async (t) => {
  const app = await buildApp(t, { UPLOAD_QUOTA_GLOBAL_DAY: '2' })
  const a = await app.inject(uploadRequest(await pngImage(30), { ip: '192.0.2.1' }))
  t.equal(a.statusCode, 201)
  const b = await app.inject(uploadRequest(await pngImage(31), { ip: '192.0.2.2' }))
  t.equal(b.statusCode, 201)
  t.same(b.json().quota, { remainingHour: 9, remainingDay: 49, remainingGlobalDay: 0 })
  const c = await app.inject(uploadRequest(await pngImage(32), { ip: '192.0.2.3' }))
  t.equal(c.statusCode, 429)
  t.match(c.json(), { error: /daily upload quota \(2\)/ })
})

test('concurrent uploads cannot overrun the quota', async (t) => {
  const app = await buildApp(t, { UPLOAD_QUOTA_HOUR: '1' })
  const images = await Promise.all([40, 41, 42, 43].map((seed) => pngImage(seed)))
  const results = await Promise.all(images.map((png) => app.inject(uploadRequest(png))))
  const statuses = results.map((r) => r.statusCode).sort()
  t.same(statuses, [201, 429, 429, 429])
  t.equal(await events(app), 1)
  const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM memes')
  t.equal(Number(rows[0].n), 1)
})

test('a moderation rejection is charged once; the same bytes again are not', async (t) => {
  const app = await buildApp(t, { MODERATION_REJECT_SCORE: '0', UPLOAD_QUOTA_HOUR: '5' })
  const png = await pngImage(50)
  const first = await app.inject(uploadRequest(png))
  t.equal(first.statusCode, 422)
  const again = await app.inject(uploadRequest(png))
  t.equal(again.statusCode, 422)
  t.equal(await events(app), 1)
})

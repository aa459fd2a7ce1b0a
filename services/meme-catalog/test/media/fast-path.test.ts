import { loadConfig } from '@app/common'
import { createTestDatabase, eventually, type HttpAnswer, httpRequest, listenOnLoopback } from '@app/testing'
import { test } from 'tap'
import { buildApp } from '../../src/app.ts'
import { configSchema } from '../../src/config.ts'
import { addMeme, ready, webpBytes } from '../memes/fixtures.ts'

type Teardown = { teardown(fn: () => unknown): void }
type LogLine = Record<string, unknown> & { msg: string; reqId?: string }

/** The catalog listening on loopback (hits are answered in front of Fastify, so not through inject), its log lines kept. */
async function serve(t: Teardown, env: Record<string, string> = {}) {
  const database = await createTestDatabase()
  const config = loadConfig(configSchema, {
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    DEMO_MEMES: 'false',
    // Counters are flushed by the tests themselves.
    MEDIA_COUNTER_FLUSH_MS: '3600000',
    // Windows are aligned to the clock: a day-long one keeps two reads compared here in the same window.
    RATE_LIMIT_WINDOW_SECONDS: '86400',
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...env,
  })
  const lines: LogLine[] = []
  const app = buildApp(config, { log: { stream: { write: (line: string) => lines.push(JSON.parse(line)) } } })
  t.teardown(async () => {
    await app.close()
    await database.cleanup()
  })
  await app.ready()
  await ready(app)
  const port = await listenOnLoopback(app)
  // The route, not the early answer, reads the meme's record from the read model: count who answered.
  const routed = { count: 0 }
  const model = app.readModel.current
  if (!model) throw new Error('read model expected')
  const get = model.get.bind(model)
  model.get = (id) => {
    routed.count++
    return get(id)
  }
  const request = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    httpRequest(port, path, { method, headers })
  return { app, lines, routed, request }
}

/** What two answers must share: all but the date, the remaining budget and a generated request id. */
function stableHeaders({ headers }: HttpAnswer): Record<string, unknown> {
  const { date, 'ratelimit-remaining': _remaining, 'x-request-id': requestId, ...rest } = headers
  return { ...rest, 'x-request-id': typeof requestId === 'string' && requestId.length > 0 }
}

async function views(app: Awaited<ReturnType<typeof serve>>['app'], id: string) {
  await app.mediaCounters.flush()
  const { rows } = await app.db.query<{ view_count: number }>('SELECT view_count FROM memes WHERE id = $1', [id])
  return rows[0].view_count
}

test('a cached image is answered before the router with the route’s status, headers and bytes', async (t) => {
  const { app, routed, request } = await serve(t)
  const id = await addMeme(app)
  const miss = await request(`/media/${id}`)
  t.equal(routed.count, 1, 'the miss went to the route')
  const hit = await request(`/media/${id}`)
  t.equal(routed.count, 1, 'the hit did not')
  t.equal(hit.status, 200)
  t.same(stableHeaders(hit), stableHeaders(miss), 'same headers')
  t.same(hit.body, await webpBytes(), 'the stored bytes')
  t.equal(hit.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'", 'security headers')
  t.equal(Number(hit.headers['ratelimit-remaining']), Number(miss.headers['ratelimit-remaining']) - 1, 'counted once each')
  t.equal(await views(app, id), 2, 'both counted as views')
})

test('304, HEAD and cross-origin reads: the early answer equals the route’s', async (t) => {
  const { app, routed, request } = await serve(t)
  const id = await addMeme(app)
  await request(`/media/${id}`)
  const origin = { origin: 'https://elsewhere.example' }
  // A query string sends the same read to the route.
  const cases: [string, Record<string, string>, string][] = [
    ['GET', origin, 'cross-origin'],
    ['GET', { 'if-none-match': `"${id}"` }, '304'],
    ['GET', { ...origin, 'if-none-match': `"other", W/"${id}"` }, '304, weak tag in a list, cross-origin'],
    ['GET', { 'if-none-match': '*' }, '304 for *'],
    ['HEAD', {}, 'HEAD'],
  ]
  for (const [method, headers, name] of cases) {
    const before = routed.count
    const early = await request(`/media/${id}`, headers, method)
    t.equal(routed.count, before, `${name}: answered early`)
    const route = await request(`/media/${id}?via=route`, headers, method)
    t.equal(routed.count, before + 1, `${name}: the query string went to the route`)
    t.equal(early.status, route.status, `${name}: status ${route.status}`)
    t.same(stableHeaders(early), stableHeaders(route), `${name}: same headers`)
    t.same(early.body, route.body, `${name}: same body`)
  }
  t.equal(await views(app, id), 1 + 2 * 4, 'GETs counted (200 and 304), HEADs not')
})

test('requests the early path does not take reach Fastify unchanged', async (t) => {
  const { app, routed, request } = await serve(t)
  const id = await addMeme(app)
  const uncached = await addMeme(app)
  await request(`/media/${id}`)
  const preflight = await request(
    `/media/${id}`,
    { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
    'OPTIONS',
  )
  t.equal(preflight.status, 204, 'CORS preflight answered by the CORS plugin')
  t.equal(preflight.headers['access-control-allow-origin'], '*')
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD')
  const before = routed.count
  t.equal((await request(`/media/${uncached}`)).status, 200, 'a miss')
  t.equal(
    (await request(`/media/${id}`, { range: 'bytes=0-9' })).status,
    200,
    'a Range request: the whole image, as the route gives it',
  )
  t.equal((await request(`/media/${id}?download=1`)).headers['content-disposition'], 'attachment; filename="fixture.webp"')
  t.equal((await request(`/media/${id}`, { 'if-none-match': `"${id}"` }, 'HEAD')).status, 304, 'a HEAD revalidation')
  t.equal(routed.count, before + 4, 'all four routed')
  t.equal((await request(`/media/${id.toUpperCase()}`)).status, 404, 'an id the route does not accept')
  t.equal((await request(`/media/${'0'.repeat(64)}`)).status, 404, 'an unknown id')
  t.equal((await request(`/media/${id}/`)).status, 404, 'a trailing slash')
  t.equal((await request(`/media/${id}`, {}, 'DELETE')).status, 404, 'another method')
})

test('a spent budget: the early path counts the read once and the route answers the 429', async (t) => {
  const { app, request } = await serve(t, { MEDIA_RATE_LIMIT: '3' })
  const id = await addMeme(app)
  const origin = { origin: 'https://elsewhere.example' }
  const remaining: unknown[] = []
  for (let i = 0; i < 3; i++) remaining.push((await request(`/media/${id}`, origin)).headers['ratelimit-remaining'])
  t.same(remaining, ['2', '1', '0'], 'one count per read')
  const limited = await request(`/media/${id}`, origin)
  const limitedRoute = await request(`/media/${id}?via=route`, origin)
  t.equal(limited.status, 429)
  t.equal(limitedRoute.status, 429)
  t.equal(limited.headers['ratelimit-remaining'], '0')
  t.same(JSON.parse(String(limited.body)), JSON.parse(String(limitedRoute.body)), 'same body')
  const { 'retry-after': retry, ...limitedHeaders } = stableHeaders(limited)
  const { 'retry-after': routeRetry, ...routeHeaders } = stableHeaders(limitedRoute)
  t.same(limitedHeaders, routeHeaders, 'same headers')
  t.ok(Number(retry) >= 1 && Math.abs(Number(retry) - Number(routeRetry)) <= 1, 'Retry-After in whole seconds')
  t.equal(limited.headers['access-control-allow-origin'], '*', 'readable cross-origin')
  t.equal(await views(app, id), 3, 'the 429s not counted')
})

test('X-Request-Id and the one log line of an early answer are those of a routed one', async (t) => {
  const { app, lines, routed, request } = await serve(t)
  const id = await addMeme(app)
  await request(`/media/${id}`)
  const echoed = await request(`/media/${id}`, { 'x-request-id': 'edge-7f3a:42/b' })
  t.equal(echoed.headers['x-request-id'], 'edge-7f3a:42/b', 'a valid id is echoed')
  const refused = await request(`/media/${id}`, { 'x-request-id': 'has space' })
  t.match(refused.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'an invalid one is replaced by a generated one')
  t.equal(routed.count, 1, 'both answered early')
  await request(`/media/${id}?via=route`, { 'x-request-id': 'routed-1' })
  const lineOf = (reqId: string) => lines.filter((l) => l.reqId === reqId)
  // A line is written once the answer has been handed to the socket, which may come after the client has it.
  await eventually(() => lineOf('routed-1').length > 0 && lineOf(String(refused.headers['x-request-id'])).length > 0, {
    timeoutMs: 5000,
    intervalMs: 10,
  })
  t.equal(lineOf('edge-7f3a:42/b').length, 1, 'one line for the early answer')
  const [early] = lineOf('edge-7f3a:42/b')
  const [route] = lineOf('routed-1')
  t.match(early.msg, new RegExp(`^GET /media/${id} 200 [0-9.]+ ms$`))
  const shape = ({ time: _t, responseTime: _r, msg: _m, reqId: _i, req, ...rest }: LogLine) => ({
    ...rest,
    req: { ...(req as object), url: undefined, remotePort: undefined },
  })
  t.same(shape(early), shape(route), 'same fields (level, req, res) as the routed line')
  t.equal(typeof early.responseTime, 'number')
  t.equal(lineOf(String(refused.headers['x-request-id'])).length, 1, 'the generated id is the logged one')
  t.notOk(JSON.stringify(lines).includes('has space'), 'the refused id is not logged')
})

test('a cached rendition is answered before the router like the rendition route answers it', async (t) => {
  const { app, request } = await serve(t)
  const id = await addMeme(app)
  const routedRenditions = { count: 0 }
  const bytesOf = app.renditions.bytesOf.bind(app.renditions)
  app.renditions.bytesOf = (memeId, name) => {
    routedRenditions.count++
    return bytesOf(memeId, name)
  }
  const url = `/media/${id}/fixed_width`
  const miss = await request(url)
  t.equal(miss.status, 200)
  t.equal(routedRenditions.count, 1, 'the first read renders it through the route')
  const hit = await request(url)
  t.equal(routedRenditions.count, 1, 'the cached one is answered early')
  t.equal(hit.status, 200)
  t.same(stableHeaders(hit), stableHeaders(miss), 'same headers')
  t.same(hit.body, miss.body, 'same bytes')
  t.equal(hit.headers.etag, `"${id}-fixed_width"`)
  const origin = { origin: 'https://elsewhere.example', 'if-none-match': `"${id}-fixed_width"` }
  const early304 = await request(url, origin)
  t.equal(early304.status, 304)
  t.equal(routedRenditions.count, 1, 'a revalidation never reads the bytes')
  t.equal(await views(app, id), 0, 'renditions are not views')
  t.equal((await request(`/media/${id}/fixed_width_large`)).status, 404, 'an unknown rendition goes to the route')
  t.equal(await app.memeUseCases.delete('admin:test', id), true)
  t.equal((await request(url)).status, 404, 'a removed meme is not served from the cache')
})

import { type LogOverrides, loadConfig } from '@app/common'
import { createTestDatabase, eventually } from '@app/testing'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { test } from 'tap'
import { buildApp } from '../../src/app.ts'
import { configSchema } from '../../src/config.ts'
import { startChatServer } from '../support/openai-server.ts'
import { pngImage, uploadRequest } from '../uploads/fixtures.ts'

/** A short, printable view of an answer for assertion messages (images stay out of the TAP output). */
function preview(res: { headers: Record<string, unknown>; body: string }): string {
  const type = String(res.headers['content-type'] ?? '')
  return /json|text/.test(type) ? res.body.slice(0, 120) : `<${type || 'no type'}, ${res.body.length} chars>`
}

// test/admin/secrets.test.ts checks the real server's stdout for two secrets over three calls; this file drives every
// kind of answer in process, with a captured trace-level log, and also checks response headers, bodies and stored rows.

const ADMIN_TOKEN = 'adm-SECRET-token-Kx93PqLm27Vb'
const API_KEY = 'sk-SECRET-captioner-Wd81Zr55Ty'
const DB_PASSWORD = 'pg-SECRET-password-Hj62Nc'

/** The catalog built as test/helper.ts builds it, but logging at trace into `lines` (extra log options on top). */
async function buildLogged(t: Tap, env: Record<string, string>, lines: string[], log: LogOverrides = {}) {
  const database = await createTestDatabase()
  // A password in the URL: PostgreSQL with trust auth ignores it, so the connection still works.
  const url = database.url ? new URL(database.url) : undefined
  if (url) url.password = DB_PASSWORD
  const config = loadConfig(configSchema, {
    LOG_LEVEL: 'trace',
    DEMO_MEMES: 'false',
    DATA_DIR: database.dataDir,
    ...(url ? { DATABASE_URL: url.toString() } : {}),
    ...env,
  })
  const stream = { write: (line: string) => lines.push(line) }
  const fastify = buildApp(config, { log: { ...log, stream } })
  await fastify.ready()
  t.teardown(async () => {
    await fastify.close()
    await database.cleanup()
  })
  return { fastify, secrets: [ADMIN_TOKEN, API_KEY, ...(url ? [DB_PASSWORD, encodeURIComponent(DB_PASSWORD)] : [])] }
}
type Tap = { teardown(fn: () => unknown): void }

test('no secret in any response or log line, across every kind of answer', async (t) => {
  let calls = 0
  // A verbose provider echoes the key in its error body (as some proxies do); it must not travel further.
  const chat = await startChatServer(t, () =>
    ++calls === 1
      ? { status: 401, raw: JSON.stringify({ error: { message: `Incorrect API key provided: ${API_KEY}` } }) }
      : { content: '{"caption":"a captioned meme","tags":[]}' },
  )
  const lines: string[] = []
  const env = {
    ADMIN_TOKEN,
    CAPTIONER: 'openai',
    CAPTIONER_URL: chat.url,
    CAPTIONER_API_KEY: API_KEY,
    CAPTION_RETRY_BASE_MS: '20',
    CAPTION_POLL_MS: '100',
    MEDIA_RATE_LIMIT: '2',
  }
  const { fastify, secrets } = await buildLogged(t, env, lines)
  const answers: LightMyRequestResponse[] = []
  const call = async (request: InjectOptions, status: number) => {
    const res = await fastify.inject(request)
    answers.push(res)
    const label = typeof request === 'string' ? request : `${request.method ?? 'GET'} ${request.url}`
    t.equal(res.statusCode, status, `${label}: ${preview(res)}`)
    return res
  }
  const admin = (authorization: string) => ({ authorization })

  // Discovery and pages.
  for (const url of ['/', '/admin', '/docs', '/docs/', '/docs/json', '/openapi.json', '/meme-api.skill.md', '/api/health']) {
    await call({ url }, 200)
  }
  // Admin calls: every accepted header form, and wrong ones that contain the token as a substring.
  await call({ url: '/api/admin/tags', headers: admin(`Bearer ${ADMIN_TOKEN}`) }, 200)
  await call({ url: '/api/admin/tags', headers: admin(`bearer   ${ADMIN_TOKEN}  `) }, 200)
  await call({ url: '/admin/openapi.json', headers: admin(`Bearer ${ADMIN_TOKEN}`) }, 200)
  for (const wrong of [
    `Bearer ${ADMIN_TOKEN}x`,
    `Bearer x${ADMIN_TOKEN}`,
    `Bearer ${ADMIN_TOKEN} ${ADMIN_TOKEN}`,
    ADMIN_TOKEN,
    `Token ${ADMIN_TOKEN}`,
    `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`,
  ]) {
    await call({ url: '/api/admin/tags', headers: admin(wrong) }, 401)
  }
  await call({ url: '/api/admin/memes', headers: { cookie: `token=${ADMIN_TOKEN}`, 'x-api-key': ADMIN_TOKEN } }, 401)
  await call(
    { method: 'POST', url: '/api/admin/tags', headers: admin(`Bearer ${ADMIN_TOKEN}`), payload: { name: 'secrets' } },
    201,
  )
  await call(
    { method: 'POST', url: '/api/admin/tags', headers: admin(`Bearer ${ADMIN_TOKEN}`), payload: { name: 'secrets' } },
    409,
  )
  await call(
    { method: 'POST', url: '/api/admin/tags', headers: admin(`Bearer ${ADMIN_TOKEN}`), payload: { token: ADMIN_TOKEN } },
    400,
  )

  // Uploads: stored, then edited, rejected, and the same bytes refused (422); a declared 20 MB body (413).
  const png = await pngImage(901)
  const stored = await call(uploadRequest(png), 201)
  const id = stored.json().meme.id as string
  const auth = admin(`Bearer ${ADMIN_TOKEN}`)
  await call(
    { method: 'PATCH', url: `/api/admin/memes/${id}`, headers: auth, payload: { caption: 'edited', tags: ['secrets'] } },
    200,
  )
  await call({ url: `/api/admin/memes/${id}`, headers: auth }, 200)
  await call({ url: `/api/admin/memes/${id}/media`, headers: auth }, 200)
  await call({ url: `/media/${id}`, remoteAddress: '203.0.113.50' }, 200)
  await call({ url: `/media/${id}`, remoteAddress: '203.0.113.50' }, 200)
  await call({ url: `/media/${id}`, remoteAddress: '203.0.113.50' }, 429)
  const request = uploadRequest(png)
  await call({ ...request, headers: { ...request.headers, 'content-length': String(20 * 1024 * 1024) } }, 413)
  await call({ url: '/api/memes?q=%21%21%21' }, 400)
  await call({ url: `/api/memes/${'0'.repeat(64)}` }, 404)
  await call({ url: `/api/admin/memes/${'0'.repeat(64)}`, headers: auth }, 404)
  await call({ url: '/no/such/route' }, 404)

  // The upload's job failed once (401 echoing the key), then kept the admin edit; a recaption then writes a caption.
  const jobStates = async () =>
    (await fastify.db.query<{ state: string }>('SELECT state FROM caption_jobs WHERE meme_id = $1', [id])).rows.map(
      (r) => r.state,
    )
  await eventually(async () => (await jobStates()).every((s) => s === 'done'), { timeoutMs: 120_000 })
  await call({ method: 'POST', url: `/api/admin/memes/${id}/recaption`, headers: auth }, 202)
  await eventually(async () => lines.some((l) => l.includes('meme captioned')), { timeoutMs: 120_000 })
  t.ok(chat.requests.length >= 2 && chat.requests[0].authorization === `Bearer ${API_KEY}`, 'the key was in use')
  await call({ method: 'POST', url: `/api/admin/memes/${id}/reject`, headers: auth }, 200)
  await call(uploadRequest(png), 422)
  await call({ url: `/api/admin/memes?status=rejected`, headers: auth }, 200)
  await call({ method: 'DELETE', url: `/api/admin/memes/${id}`, headers: auth }, 204)

  // The capture works: it saw trace lines, the refused admin calls and the failed caption attempt.
  t.ok(
    lines.some((l) => l.includes('"level":10')),
    'trace lines captured',
  )
  t.ok(
    lines.some((l) => l.includes('"statusCode":401')),
    'the 401s were logged',
  )
  t.ok(
    lines.some((l) => l.includes('caption job will be retried')),
    'the failed provider call was logged',
  )

  const stored_ = await fastify.db.query<{ row: string }>(
    `SELECT row_to_json(a)::text AS row FROM admin_audit a UNION ALL SELECT row_to_json(j)::text FROM caption_jobs j`,
  )
  t.ok(stored_.rows.length >= 3, 'audit and job rows exist')
  for (const secret of secrets) {
    const label = secret.slice(0, 8)
    t.notOk(
      lines.find((l) => l.includes(secret)),
      `${label}…: in no log line (${lines.length} lines)`,
    )
    t.notOk(
      answers.find((r) => r.body.includes(secret) || JSON.stringify(r.headers).includes(secret)),
      `${label}…: in no response body or header (${answers.length} answers)`,
    )
    t.notOk(
      stored_.rows.find((r) => r.row.includes(secret)),
      `${label}…: in no audit or job row`,
    )
  }
  const basic = Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')
  t.notOk(
    lines.find((l) => l.includes(basic)),
    'the Basic form of the token is not logged either',
  )
})

test('if request headers are ever logged, redaction hides the Authorization and Cookie values', async (t) => {
  const lines: string[] = []
  // As a developer turning on header logging would: the service's redaction paths must still apply.
  const serializers = {
    req: (req: { method: string; url: string; headers: Record<string, unknown> }) => ({
      method: req.method,
      url: req.url,
      headers: req.headers,
    }),
  }
  const { fastify } = await buildLogged(t, { ADMIN_TOKEN, CAPTIONER: 'none' }, lines, { serializers })
  for (const authorization of [`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}-wrong`]) {
    await fastify.inject({ url: '/api/admin/tags', headers: { authorization, cookie: `session=${ADMIN_TOKEN}` } })
  }
  const withHeaders = lines.filter((l) => l.includes('"headers":'))
  t.ok(withHeaders.length >= 2, `request headers were logged (${withHeaders.length} lines)`)
  t.ok(
    withHeaders.every((l) => l.includes('"authorization":"[redacted]"') && l.includes('"cookie":"[redacted]"')),
    'the values are replaced',
  )
  t.notOk(
    lines.find((l) => l.includes(ADMIN_TOKEN)),
    'the token is in no line',
  )
})

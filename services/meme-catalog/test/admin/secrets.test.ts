import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase, eventually } from '@app/testing'
import sharp from 'sharp'
import { test } from 'tap'
import { startChatServer } from '../support/openai-server.ts'

const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const ADMIN_TOKEN = 'admin-secret-Zq81xYtW3pLk'
const API_KEY = 'sk-secret-Hn27cVbM90aQ'

test('the real server never logs the admin token or the captioner key', async (t) => {
  let calls = 0
  const chat = await startChatServer(t, () =>
    ++calls === 1 ? { status: 500, raw: '{"error":"first call fails"}' } : { content: '{"caption":"logged run","tags":[]}' },
  )
  const database = await createTestDatabase()
  t.teardown(() => database.cleanup())
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: serviceDir,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: database.dataDir,
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      DEMO_MEMES: 'false',
      LOG_LEVEL: 'trace',
      ADMIN_TOKEN,
      CAPTIONER: 'openai',
      CAPTIONER_URL: chat.url,
      CAPTIONER_API_KEY: API_KEY,
      CAPTION_RETRY_BASE_MS: '20',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })

  const base = await eventually(async () => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1], {
    timeoutMs: 180_000,
  })
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7bd5' } })
    .png()
    .toBuffer()
  const form = new FormData()
  form.append('meme', new Blob([png], { type: 'image/png' }), 'secret-test.png')
  const upload = await fetch(`${base}/api/memes`, { method: 'POST', body: form })
  t.ok([201, 202].includes(upload.status), `upload stored (${upload.status})`)

  const wrong = await fetch(`${base}/api/admin/tags`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}-wrong` } })
  t.equal(wrong.status, 401)
  const right = await fetch(`${base}/api/admin/tags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'logged' }),
  })
  t.equal(right.status, 201)
  await eventually(async () => output.includes('meme captioned'), { timeoutMs: 60_000 })
  child.kill('SIGTERM')
  await once(child, 'exit')

  t.equal(chat.requests[0]?.authorization, `Bearer ${API_KEY}`, 'the key was in use')
  t.match(output, 'caption job will be retried', 'the failed call was logged')
  t.match(output, '"statusCode":401', 'the refused admin request was logged')
  t.notMatch(output, ADMIN_TOKEN, 'no admin token in the logs')
  t.notMatch(output, API_KEY, 'no captioner key in the logs')
})

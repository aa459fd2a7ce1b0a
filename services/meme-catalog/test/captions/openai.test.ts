import { loadConfig } from '@app/common'
import { eventually } from '@app/testing'
import { test } from 'tap'
import { createCaptioner } from '../../src/captions/providers/index.ts'
import { instructions, MAX_PROMPT_TAGS, MAX_RESPONSE_BYTES, unfence } from '../../src/captions/providers/openai.ts'
import { configSchema } from '../../src/config.ts'
import { build } from '../helper.ts'
import { addTags, insertMeme, jobsOf, plainImage, renderMeme } from '../support/memes.ts'
import { type ChatReply, chatCompletion, startChatServer } from '../support/openai-server.ts'

const API_KEY = 'sk-test-0123456789-secret'

async function setup(t: Parameters<typeof build>[0], replies: ChatReply[], env: Record<string, string> = {}) {
  const queue = [...replies]
  const server = await startChatServer(t, () => queue.shift() ?? { status: 500, raw: '{"error":"no more replies"}' })
  const app = await build(t, {
    env: {
      CAPTIONER: 'openai',
      CAPTIONER_URL: server.url,
      CAPTIONER_API_KEY: API_KEY,
      CAPTIONER_MODEL: 'vision-test',
      CAPTION_RETRY_BASE_MS: '20',
      CAPTION_POLL_MS: '100',
      ...env,
    },
  })
  return { app, server }
}

async function captionOf(app: Awaited<ReturnType<typeof build>>, id: string) {
  const { rows } = await app.db.query<{ caption: string; tags: string[] }>(
    `SELECT caption, coalesce((SELECT array_agg(tag ORDER BY tag) FROM meme_tags WHERE meme_id = $1), '{}') AS tags
     FROM memes WHERE id = $1`,
    [id],
  )
  return rows[0]
}

async function queueJob(app: Awaited<ReturnType<typeof build>>, image: Buffer) {
  const id = await insertMeme(app, image, { job: true })
  await app.captionJobs.notify(id)
  return id
}

const settled = (app: Awaited<ReturnType<typeof build>>, id: string) =>
  eventually(async () => {
    const jobs = await jobsOf(app.db, id)
    return jobs.length > 0 && jobs.every((j) => j.state === 'done' || j.state === 'failed') ? jobs : null
  })

test('a good answer sets caption and catalog tags; unknown tags are dropped', async (t) => {
  const answer = JSON.stringify({ caption: 'A cat judging your code review', tags: ['cats', 'Programming', 'dogs', 'unknown'] })
  const { app, server } = await setup(t, [{ content: answer }])
  await addTags(app.db, 'cats', 'programming', 'monday')
  const id = await queueJob(app, await renderMeme('CODE REVIEW'))
  const [job] = await settled(app, id)
  t.equal(job.state, 'done')
  t.equal(job.attempts, 1)
  t.same(await captionOf(app, id), { caption: 'A cat judging your code review', tags: ['cats', 'programming'] })

  t.equal(server.requests.length, 1)
  const request = server.requests[0]
  t.equal(request.authorization, `Bearer ${API_KEY}`, 'the API key is sent as a bearer token')
  t.equal(request.body.model, 'vision-test')
  t.same(request.body.response_format, { type: 'json_object' })
  t.match(request.imageUrl, /^data:image\/webp;base64,[A-Za-z0-9+/]+=*$/, 'the image goes as a WebP data URL')
  const system = request.body.messages?.find((m) => m.role === 'system')?.content as string
  t.match(system, '["cats","monday","programming"]', 'the current catalog is offered as the only choices')
})

test('a tag the model names by one of its aliases is kept as that tag', async (t) => {
  const answer = JSON.stringify({ caption: 'A kitten at the keyboard', tags: ['Kitty', 'coding', 'unknown'] })
  const { app } = await setup(t, [{ content: answer }])
  await addTags(app.db, 'cats', 'programming')
  for (const [tag, alias] of [
    ['cats', 'kitty'],
    ['programming', 'coding'],
  ]) {
    t.ok('added' in (await app.tagUseCases.addAlias('test', tag, alias)), `${alias} -> ${tag}`)
  }
  const id = await queueJob(app, await renderMeme('KEYBOARD CAT'))
  const [job] = await settled(app, id)
  t.equal(job.state, 'done')
  t.same(await captionOf(app, id), { caption: 'A kitten at the keyboard', tags: ['cats', 'programming'] })
})

test('the meme becomes findable by its new caption', async (t) => {
  const { app } = await setup(t, [{ content: '{"caption":"Quixotic wombat dances at dawn","tags":[]}' }])
  const id = await queueJob(app, await plainImage(1))
  await settled(app, id)
  t.equal((await captionOf(app, id)).caption, 'Quixotic wombat dances at dawn')
  const res = await app.inject({ url: '/api/memes?q=wombat' })
  t.equal(res.statusCode, 200)
  t.same(
    res.json().memes.map((m: { id: string }) => m.id),
    [id],
  )
})

test('invalid JSON in the answer is retried, then a good answer lands', async (t) => {
  const { app, server } = await setup(t, [
    { content: 'Sure! Here is a caption: a cat.' },
    { content: '```json\n{"caption":"Second try","tags":[]}\n```' },
  ])
  const id = await queueJob(app, await plainImage(2))
  const [job] = await settled(app, id)
  t.equal(job.state, 'done')
  t.equal(job.attempts, 2)
  t.equal((await captionOf(app, id)).caption, 'Second try')
  t.equal(server.requests.length, 2)
})

test('a hostile answer (a fence, a long run of blanks, no closing fence) fails fast and keeps the server responsive', async (t) => {
  const hostile = `\`\`\`${' '.repeat(200_000)}x`
  const { app } = await setup(t, [{ content: hostile }, { content: hostile }], { CAPTION_MAX_ATTEMPTS: '2' })
  const id = await queueJob(app, await plainImage(8))
  const started = Date.now()
  const [job] = await settled(app, id)
  t.equal(job.state, 'failed')
  t.equal(job.attempts, 2)
  t.match(job.last_error, /not a JSON object/)
  t.ok(Date.now() - started < 20_000, `both attempts settled in ${Date.now() - started} ms`)
  t.equal((await app.inject({ url: '/api/health' })).statusCode, 200)
})

test('unfence takes what is inside a Markdown fence, with or without a json label', async (t) => {
  t.equal(unfence('```json\n{"caption":"a"}\n```'), '{"caption":"a"}')
  t.equal(unfence('  ```JSON {"caption":"a"} ```  '), '{"caption":"a"}')
  t.equal(unfence('```\n{"caption":"a"}\n```'), '{"caption":"a"}')
  t.equal(unfence('```jsonx```'), 'x', 'the label is the first four letters, as the model writes it')
  t.equal(unfence('``````'), '')
  t.equal(unfence(' {"caption":"a"} '), '{"caption":"a"}', 'no fence: the answer trimmed')
  t.equal(unfence('```{"caption":"a"}'), '```{"caption":"a"}', 'no closing fence: left as it is')
  t.equal(unfence('`````'), '`````', 'too short for two fences')
})

test('an HTTP 500 is retried with backoff, then succeeds', async (t) => {
  const { app } = await setup(t, [
    { status: 500, raw: '{"error":{"message":"overloaded"}}' },
    { content: '{"caption":"ok now","tags":[]}' },
  ])
  const id = await queueJob(app, await plainImage(3))
  const [job] = await settled(app, id)
  t.equal(job.state, 'done')
  t.equal(job.attempts, 2)
  t.equal((await captionOf(app, id)).caption, 'ok now')
})

test('answers that are not chat completions, or lack a caption, count as failures', async (t) => {
  const { app } = await setup(
    t,
    [{ raw: 'not json at all' }, { raw: '{"choices":[]}' }, { content: '{"tags":["x"]}' }, { content: '{"caption":42}' }],
    { CAPTION_MAX_ATTEMPTS: '4' },
  )
  const id = await queueJob(app, await plainImage(4))
  const [job] = await settled(app, id)
  t.equal(job.state, 'failed', 'gives up after CAPTION_MAX_ATTEMPTS')
  t.equal(job.attempts, 4)
  t.match(job.last_error, /lacks a string "caption"/)
  t.notMatch(job.last_error, API_KEY)
  t.equal((await captionOf(app, id)).caption, '', 'the meme keeps its empty caption')
})

test('a caption over 2000 characters is clamped', async (t) => {
  const long = 'é'.repeat(2500)
  const { app } = await setup(t, [{ content: JSON.stringify({ caption: long, tags: [] }) }])
  const id = await queueJob(app, await plainImage(5))
  await settled(app, id)
  const { caption } = await captionOf(app, id)
  t.equal(Array.from(caption).length, 2000)
})

test('a hanging captioner times out and the job is retried', async (t) => {
  const { app, server } = await setup(t, [{ hang: true }, { content: '{"caption":"after timeout","tags":[]}' }], {
    CAPTIONER_TIMEOUT_MS: '300',
  })
  const id = await queueJob(app, await plainImage(6))
  const [job] = await settled(app, id)
  t.equal(job.state, 'done')
  t.equal(job.attempts, 2)
  t.equal(server.requests.length, 2)
  t.equal((await captionOf(app, id)).caption, 'after timeout')
})

test('an unreachable captioner is a retryable failure whose error names no secret', async (t) => {
  const app = await build(t, {
    env: {
      CAPTIONER: 'openai',
      CAPTIONER_URL: 'http://127.0.0.1:9/v1',
      CAPTIONER_API_KEY: API_KEY,
      CAPTION_MAX_ATTEMPTS: '2',
      CAPTION_RETRY_BASE_MS: '10',
      CAPTION_POLL_MS: '100',
    },
  })
  const id = await queueJob(app, await plainImage(7))
  const [job] = await settled(app, id)
  t.equal(job.state, 'failed')
  t.equal(job.attempts, 2)
  t.match(job.last_error, /unreachable/)
  t.notMatch(job.last_error, API_KEY)
})

test('an answer past the size cap fails the attempt with the cap named', async (t) => {
  const { app } = await setup(t, [{ raw: 'x'.repeat(MAX_RESPONSE_BYTES + 1) }], { CAPTION_MAX_ATTEMPTS: '1' })
  const id = await queueJob(app, await plainImage(8))
  const [job] = await settled(app, id)
  t.equal(job.state, 'failed')
  t.match(job.last_error, `captioner answer is larger than ${MAX_RESPONSE_BYTES} bytes`)
})

test('CAPTIONER=openai without CAPTIONER_URL fails at start-up', async (t) => {
  t.throws(() => createCaptioner(loadConfig(configSchema, { CAPTIONER: 'openai' })), /CAPTIONER_URL/)
  t.equal(
    createCaptioner(loadConfig(configSchema, { CAPTIONER: 'openai', CAPTIONER_URL: 'http://127.0.0.1:1/v1' })).name,
    'openai',
  )
})

test('CAPTIONER_URL with credentials in it is refused without echoing them', async (t) => {
  const error = t.throws(() => loadConfig(configSchema, { CAPTIONER_URL: 'http://user:hunter2-pw@127.0.0.1:1/v1' })) as Error
  t.match(error.message, /CAPTIONER_URL/)
  t.notMatch(error.message, /hunter2-pw/)
})

test('chatCompletion helper builds what the client parses', async (t) => {
  t.same(JSON.parse(chatCompletion('{"caption":"x"}')).choices[0].message.content, '{"caption":"x"}')
})

test('the prompt names at most MAX_PROMPT_TAGS catalog tags', async (t) => {
  const catalog = Array.from({ length: MAX_PROMPT_TAGS + 50 }, (_, i) => `tag${String(i).padStart(4, '0')}`)
  const prompt = instructions(catalog)
  t.ok(prompt.includes(`"tag${String(MAX_PROMPT_TAGS - 1).padStart(4, '0')}"`), 'the last name within the bound')
  t.notOk(prompt.includes(`"tag${String(MAX_PROMPT_TAGS).padStart(4, '0')}"`), 'none past it')
  t.match(instructions([]), /empty array/)
})

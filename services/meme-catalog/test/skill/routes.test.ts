import { test } from 'tap'
import { build } from '../helper.ts'
import { addMeme, ready } from '../memes/fixtures.ts'

type Json = Record<string, any>

const EXAMPLE = /```http\nGET (\S+)\n```\n\nResponse: `(\d+)`[^\n]*\n\n```json\n([\s\S]*?)\n```/g
const MEDIA_EXAMPLE =
  /```http\nGET (\/media\/\S+)\n```\n\nResponse: `(\d+)` \(binary body\) with headers:\n\n```text\n([\s\S]*?)\n```/

/** The same body, except the rate-limit budget, which depends on the caller and the moment. */
function withoutBudget(body: Json): Json {
  const { rateLimit, ...rest } = body
  return rest
}

test('GET /meme-api.skill.md: markdown whose examples are what the API answers', async (t) => {
  const app = await build(t, { env: { DEMO_MEMES: 'true', READ_RATE_LIMIT: '77', MEDIA_RATE_LIMIT: '555' } })
  await app.demo.seeded
  await ready(app)
  const res = await app.inject('/meme-api.skill.md')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/markdown/)
  const text = res.body
  for (const heading of [
    '## What this service is',
    '## Search semantics',
    '## Limits and quotas',
    '## Errors',
    '## Retry on 429',
  ]) {
    t.match(text, heading)
  }
  for (const path of ['GET /api/memes', 'POST /api/memes', 'GET /api/memes/{id}', 'GET /media/{id}', 'GET /api/tags']) {
    t.match(text, `## ${path}`, `documents ${path}`)
  }
  t.match(text, '| 77 per IP per 60 s |', 'the configured read limit')
  t.match(text, '| 555 per IP per 60 s |', 'the configured media limit')

  const examples = [...text.matchAll(EXAMPLE)]
  t.ok(examples.length >= 9, `${examples.length} JSON examples`)
  let searches = 0
  for (const [, url, status, json] of examples) {
    const documented = JSON.parse(json) as Json
    const actual = await app.inject({ url, remoteAddress: '192.0.2.7' })
    t.equal(actual.statusCode, Number(status), `${url}: status`)
    t.same(withoutBudget(actual.json()), withoutBudget(documented), `${url}: body`)
    if (documented.rateLimit) {
      t.equal(documented.rateLimit.limit, 77, `${url}: the documented budget is the real one`)
      t.ok(Number.isInteger(documented.rateLimit.remaining) && !Number.isNaN(Date.parse(documented.rateLimit.resetAt)))
    }
    if (url.includes('q=') && !url.includes('zzzz')) {
      searches++
      t.ok(documented.total >= 1, `${url}: the search example finds something`)
    }
  }
  t.equal(searches, 3, 'exact, typo and prefix search examples')
  t.ok(
    examples.some(([, url, status]) => url.includes('pageSize=100') && status === '400'),
    'an error example',
  )
  t.ok(
    examples.some(([, url, status]) => url.startsWith('/api/memes/') && status === '404'),
    'a 404 example',
  )

  const media = text.match(MEDIA_EXAMPLE)
  t.ok(media, 'a media example')
  if (media) {
    const actual = await app.inject({ url: media[1], remoteAddress: '192.0.2.7' })
    t.equal(actual.statusCode, Number(media[2]))
    for (const line of media[3].split('\n')) {
      const [name, ...value] = line.split(': ')
      t.equal(actual.headers[name], value.join(': '), `media header ${name}`)
    }
  }
})

test('the skill file of an empty catalog still has real examples', async (t) => {
  const app = await build(t)
  await ready(app)
  const text = (await app.inject('/meme-api.skill.md')).body
  const examples = [...text.matchAll(EXAMPLE)]
  t.ok(examples.length >= 4)
  for (const [, url, status, json] of examples) {
    const actual = await app.inject(url)
    t.equal(actual.statusCode, Number(status), url)
    t.same(withoutBudget(actual.json()), withoutBudget(JSON.parse(json)), url)
  }
})

test('captions cannot break out of the example code blocks', async (t) => {
  const app = await build(t)
  await ready(app)
  const id = await addMeme(app, { caption: 'sneaky ``` fence\n# Heading', tags: ['fence'] })
  const text = (await app.inject('/meme-api.skill.md')).body
  t.notMatch(text, 'sneaky ```', 'the backticks are escaped')
  t.notMatch(text, /^# Heading/m, 'no injected heading')
  const newest = [...text.matchAll(EXAMPLE)].find(([, url]) => url === '/api/memes?pageSize=2')
  t.ok(newest, 'the example is intact')
  t.equal(JSON.parse(newest![3]).memes[0].id, id)
  t.equal(JSON.parse(newest![3]).memes[0].caption, 'sneaky ``` fence\n# Heading', 'and parses to the real caption')
})

import { loadConfig } from '@app/common'
import { eventually } from '@app/testing'
import { test } from 'tap'
import { createCaptioner } from '../../src/captions/providers/index.ts'
import { createOcrCaptioner, type OcrCaptioner, preprocessForOcr } from '../../src/captions/providers/ocr.ts'
import { configSchema } from '../../src/config.ts'
import { build } from '../helper.ts'
import { addTags, insertMeme, jobsOf, renderMeme } from '../support/memes.ts'

test('preprocessing turns white outlined text into black on white', async (t) => {
  const sharp = (await import('sharp')).default
  const prepared = await preprocessForOcr(await renderMeme('HELLO', 'WORLD', { width: 400, height: 300 }))
  const { width, height, channels } = await sharp(prepared).metadata()
  t.equal(width, 800 + 32, 'small images are upscaled 2x (plus a margin)')
  t.equal(height, 600 + 32)
  t.equal(channels, 1, 'greyscale')
  const { data } = await sharp(prepared).extractChannel(0).raw().toBuffer({ resolveWithObject: true })
  t.ok(
    data.every((v) => v === 0 || v === 255),
    'pure black and white',
  )
  const at = (x: number, y: number) => data[y * (800 + 32) + x]
  t.equal(at(16 + 10, 16 + 300), 255, 'the dark background turns to white paper')
  const topRow = Array.from({ length: 800 }, (_, x) => at(16 + x, 16 + 120))
  t.ok(topRow.includes(0), 'the white text turns to black glyphs')
})

test('the OCR captioner reads meme text and picks catalog tags', async (t) => {
  const captioner = createOcrCaptioner()
  t.teardown(() => captioner.close())
  const result = await captioner.caption({
    image: await renderMeme('ONE DOES NOT SIMPLY', 'DEPLOY ON FRIDAY'),
    catalog: ['deploy', 'friday', 'monday', 'simply red'],
    aliases: ['one does not simply', 'weekend'],
    signal: AbortSignal.timeout(60_000),
  })
  t.match(result?.caption, /ONE DOES NOT SIMPLY/i)
  t.match(result?.caption, /DEPLOY ON FRIDAY/i)
  t.same(result?.tags, ['deploy', 'friday', 'one does not simply'], 'an alias in the text counts (stored as its tag)')
})

test('the OCR engine loads on first use, stops when idle and reads the same after restarting', async (t) => {
  const captioner = createOcrCaptioner({ idleMs: 300 })
  t.teardown(() => captioner.close())
  t.equal(captioner.loaded, false, 'nothing is loaded before the first caption')
  const input = {
    image: await renderMeme('SUCH MEMORY', 'VERY IDLE'),
    catalog: ['memory'],
    signal: AbortSignal.timeout(60_000),
  }
  const first = await captioner.caption(input)
  t.match(first?.caption, /SUCH MEMORY/i)
  t.same(first?.tags, ['memory'])
  await eventually(() => !captioner.loaded || undefined, {
    what: 'the idle OCR engine stopped',
    timeoutMs: 10_000,
    intervalMs: 50,
  })
  t.same(await captioner.caption(input), first, 'a restarted engine reads the same text')
})

test('the OCR engine unloads after OCR_IDLE_SECONDS, however long the moderation model stays', async (t) => {
  t.equal(loadConfig(configSchema, {}).OCR_IDLE_SECONDS, 10, 'default 10 s')
  const config = loadConfig(configSchema, { CAPTIONER: 'ocr', OCR_IDLE_SECONDS: '1', MODEL_IDLE_SECONDS: '3600' })
  const captioner = createCaptioner(config) as OcrCaptioner
  t.teardown(() => captioner.close())
  const result = await captioner.caption({
    image: await renderMeme('SHORT IDLE', 'LONG MODEL'),
    catalog: [],
    signal: AbortSignal.timeout(60_000),
  })
  t.match(result?.caption, /SHORT IDLE/i)
  t.equal(captioner.loaded, true, 'loaded right after a caption')
  await eventually(() => !captioner.loaded || undefined, {
    what: 'the OCR engine stopped after its own idle time',
    timeoutMs: 20_000,
    intervalMs: 100,
  })
})

test('an uploaded meme gets its OCR caption and becomes findable by its text', async (t) => {
  const app = await build(t, { env: { CAPTIONER: 'ocr', CAPTION_POLL_MS: '200' } })
  await addTags(app.db, 'cats', 'coffee', 'monday')
  const id = await insertMeme(app, await renderMeme('NEED MORE COFFEE', 'MONDAY AGAIN'), { job: true })
  await app.captionJobs.notify(id)
  const [job] = await eventually(
    async () => {
      const jobs = await jobsOf(app.db, id)
      return jobs.every((j) => j.state === 'done' || j.state === 'failed') ? jobs : null
    },
    { timeoutMs: 120_000 },
  )
  t.equal(job.state, 'done')
  const { rows } = await app.db.query<{ caption: string }>('SELECT caption FROM memes WHERE id = $1', [id])
  t.match(rows[0].caption, /NEED MORE COFFEE/i)
  t.match(rows[0].caption, /MONDAY AGAIN/i)

  const byText = (await app.inject({ url: '/api/memes?q=coffee' })).json()
  t.same(
    byText.memes.map((m: { id: string }) => m.id),
    [id],
    'found by a word of its text',
  )
  t.match(byText.memes[0], { caption: /NEED MORE COFFEE/i, tags: ['coffee', 'monday'] })
  t.equal((await app.inject({ url: '/api/memes?q=coffe&tag=monday' })).json().total, 1, 'prefix query plus tag filter')
})

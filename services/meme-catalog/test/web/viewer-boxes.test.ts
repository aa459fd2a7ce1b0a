import { setTimeout as sleep } from 'node:timers/promises'
import { chromiumMissing } from '@app/testing/browser'
import type { Page } from 'playwright-core'
import { test } from 'tap'
import { insertMeme, renderMeme } from '../support/memes.ts'
import { launch, screenshot, serve, watchErrors } from './browser.ts'

const CAPTION = 'ONE DOES NOT SIMPLY DEPLOY ON FRIDAY'
// Where the words of renderMeme's bottom line are drawn on the 800 x 600 image (as the OCR reads them).
const WORDS = [
  { text: 'DEPLOY', start: 20, end: 26, x: 124, y: 526, w: 223, h: 39 },
  { text: 'ON', start: 27, end: 29, x: 368, y: 526, w: 80, h: 39 },
  { text: 'FRIDAY', start: 30, end: 36, x: 476, y: 526, w: 206, h: 38 },
]

/** Each outline's box on screen, and where the word's box falls on the image as shown. */
const drawnBoxes = (page: Page) =>
  page.locator('#viewer .viewer-figure').evaluate((figure) => {
    const img = figure.querySelector('img') as HTMLImageElement
    const shown = img.getBoundingClientRect()
    return Array.from(figure.querySelectorAll('svg.word-boxes rect'), (rect) => {
      const r = rect.getBoundingClientRect()
      return {
        word: (rect as SVGRectElement).dataset.word,
        left: r.left - shown.left,
        top: r.top - shown.top,
        width: r.width,
        height: r.height,
        scale: shown.width / img.naturalWidth,
      }
    })
  })

test('meme viewer: opened from a search it marks the matched caption words and outlines them on the image', {
  skip: chromiumMissing(),
}, async (t) => {
  const { app, base } = await serve(t, { CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' })
  const id = await insertMeme(app, await renderMeme('ONE DOES NOT SIMPLY', 'DEPLOY ON FRIDAY'), {
    caption: CAPTION,
    tags: ['fridays', 'office'],
  })
  await app.captionWords.replace(id, CAPTION, WORDS)
  for (let i = 0; i < 300 && (await app.inject(`/api/memes?q=friday`)).json().total === 0; i++) await sleep(100)

  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)
  const viewer = page.locator('#viewer')

  // From the gallery's search: the card opens the view with the query's matches.
  await page.goto(`${base}/?q=${encodeURIComponent('deploy friday')}`)
  await page.locator('#grid .card').first().click()
  await viewer.locator('.caption mark').first().waitFor()
  t.same(await viewer.locator('.caption mark').allTextContents(), ['DEPLOY', 'FRIDAY'], 'matched words marked')
  t.equal(await viewer.locator('.caption').textContent(), CAPTION, 'the caption reads the same, marks or not')
  const chips = viewer.locator('.chips .chip')
  t.same(await chips.allTextContents(), ['fridays', 'office'], 'the tag chips read the same, marks or not')
  t.same(await chips.locator('mark').allTextContents(), ['fridays'], 'the matched tag is marked in its chip')
  t.equal(await viewer.getByRole('button', { name: 'fridays', exact: true }).count(), 1, 'its chip keeps its name')
  t.equal(await viewer.locator('svg.word-boxes').getAttribute('aria-hidden'), 'true', 'the outlines are decorative')
  await viewer.locator('img').evaluate((img: HTMLImageElement) => img.decode())

  const check = async (label: string) => {
    const boxes = await drawnBoxes(page)
    t.same(
      boxes.map((b) => b.word),
      ['DEPLOY', 'FRIDAY'],
      `${label}: one outline per matched word`,
    )
    for (const box of boxes) {
      const word = WORDS.find((w) => w.text === box.word)
      if (!word) continue
      const { scale } = box
      // The outline is the word's box with a little padding around it, both scaled with the image.
      t.ok(box.left <= word.x * scale + 1 && box.left >= (word.x - 12) * scale - 1, `${label}: ${box.word} left ${box.left}`)
      t.ok(box.top <= word.y * scale + 1 && box.top >= (word.y - 12) * scale - 1, `${label}: ${box.word} top ${box.top}`)
      t.ok(box.left + box.width >= (word.x + word.w) * scale - 1, `${label}: ${box.word} covers the word's right edge`)
      t.ok(box.top + box.height >= (word.y + word.h) * scale - 1, `${label}: ${box.word} covers the word's bottom edge`)
      t.ok(box.width <= (word.w + 24) * scale + 1, `${label}: ${box.word} not much wider than the word`)
    }
    return boxes[0]?.scale ?? 0
  }
  const wide = await check('wide window')
  await screenshot(page, 'meme-catalog-viewer-boxes.png')

  // A narrow window shows the image smaller: the outlines shrink with it.
  await page.setViewportSize({ width: 375, height: 740 })
  await page.waitForFunction(
    () => (document.querySelector('#viewer img') as HTMLImageElement).getBoundingClientRect().width < 375,
  )
  const narrow = await check('narrow window')
  t.ok(narrow < wide, `the image is shown smaller (${narrow.toFixed(2)} < ${wide.toFixed(2)})`)

  // Without a search the same link shows the plain view.
  await page.goto(`${base}/?meme=${id}`)
  await viewer.locator('.caption', { hasText: CAPTION }).waitFor()
  t.equal(await viewer.locator('.caption mark').count(), 0, 'nothing marked')
  t.equal(await viewer.locator('.chips mark').count(), 0, 'no tag marked')
  t.equal(await viewer.locator('svg.word-boxes').count(), 0, 'no outlines')

  t.same(errors, [], 'no script errors or policy violations')
})

import { createHash } from 'node:crypto'
import { expectRoutes } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import sharp from 'sharp'
import { test } from 'tap'
import { launch, memePng, screenshot, serve, watchErrors } from './browser.ts'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64')

test('upload form: pre-checks, server answers, quota and retry time', { skip: chromiumMissing() }, async (t) => {
  const { app, base } = await serve(t, { CAPTIONER: 'none', UPLOAD_QUOTA_HOUR: '2' })
  if (
    !expectRoutes(t, app, [
      ['POST', '/api/memes'],
      ['GET', '/api/memes'],
      ['GET', '/media/:id'],
    ])
  )
    return
  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)
  const posts: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request.url())
  })
  await page.goto(`${base}/`)
  await page.locator('#gallery-status', { hasText: 'No memes yet' }).waitFor()
  const result = page.locator('#upload-result')
  const button = page.locator('#upload-button')

  // Over 5 MB, dropped on the zone: refused in the page, nothing is sent.
  const dropped = await page.evaluateHandle(() => {
    const data = new DataTransfer()
    data.items.add(new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'big.png', { type: 'image/png' }))
    return data
  })
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: dropped })
  await result.locator('text=larger than the 5 MB limit').waitFor()
  t.match(await result.textContent(), /5,242,881 bytes, at most 5,242,880/)
  t.ok(await button.isDisabled(), 'nothing to send')
  // The same through the picker.
  const big = Buffer.alloc(5 * 1024 * 1024 + 1)
  ;(await memePng(1)).copy(big)
  await page.setInputFiles('#file-input', { name: 'big2.png', mimeType: 'image/png', buffer: big })
  await result.locator('text=“big2.png” is larger than the 5 MB limit').waitFor()
  await page.locator('#upload-form').evaluate((form: HTMLFormElement) => form.requestSubmit())
  // A declared type other than PNG/JPEG is refused in the page too.
  await page.setInputFiles('#file-input', { name: 'anim.gif', mimeType: 'image/gif', buffer: GIF })
  await result.locator('text=Only PNG and JPEG images can be uploaded').waitFor()
  t.ok(await button.isDisabled())
  t.same(posts, [], 'no upload request was made for refused files')

  // A GIF dressed up as a PNG passes the page's check; the server sniffs it and its 415 message is shown.
  await page.setInputFiles('#file-input', { name: 'funny.png', mimeType: 'image/png', buffer: GIF })
  const gifAnswer = page.waitForResponse((r) => r.request().method() === 'POST')
  await button.click()
  const response = await gifAnswer
  t.equal(response.status(), 415)
  const { error } = await response.json()
  t.type(error, 'string')
  await result.locator('strong', { hasText: error }).waitFor()
  t.equal(posts.length, 1)

  // A PNG is approved: the answer links to it, reports the quota, and the gallery shows it.
  const png = await memePng(2)
  const id = sha256(png)
  await page.setInputFiles('#file-input', { name: 'hello.png', mimeType: 'image/png', buffer: png })
  await button.click()
  await result.locator('strong', { hasText: 'Upload approved.' }).waitFor({ timeout: 60_000 })
  t.equal(await result.locator('a').getAttribute('href'), `/?meme=${id}`)
  t.match(await result.textContent(), /Uploads left for you: 1 this hour, 49 today\./)
  t.match(await result.textContent(), /Moderation: .+ \(score \d+\/100\)/)
  t.ok(await page.locator('#upload-progress').isHidden(), 'the progress bar is gone once answered')
  const card = page.locator(`#grid img[src="/media/${id}"]`)
  await card.waitFor()
  await card.evaluate((img: HTMLImageElement) => img.decode())
  t.equal(await card.getAttribute('width'), '480')
  await screenshot(page, 'meme-catalog-upload-result.png')
  await result.locator('a').click()
  await page.locator('#viewer a.download').waitFor()
  t.match(page.url(), new RegExp(`meme=${id}`))
  await page.keyboard.press('Escape')

  // The upload quota (2 per hour here): the third is refused with the server's message and a retry time.
  await page.setInputFiles('#file-input', {
    name: 'two.jpg',
    mimeType: 'image/jpeg',
    buffer: await sharp(await memePng(3))
      .jpeg()
      .toBuffer(),
  })
  await button.click()
  await result.locator('text=0 this hour').waitFor({ timeout: 60_000 })
  await page.setInputFiles('#file-input', { name: 'three.png', mimeType: 'image/png', buffer: await memePng(4) })
  const quotaAnswer = page.waitForResponse((r) => r.request().method() === 'POST')
  await button.click()
  const refused = await quotaAnswer
  t.equal(refused.status(), 429)
  await result.locator('strong', { hasText: (await refused.json()).error }).waitFor()
  t.match(await result.textContent(), /Try again in \d+ (seconds|minutes) \(at .+\)\./)

  t.same(errors, [], 'no script errors or policy violations')
})

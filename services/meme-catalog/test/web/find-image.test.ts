import { expectRoutes } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import sharp from 'sharp'
import { test } from 'tap'
import { classifierPixels, decode, perceptualHash } from '../../src/images/process.ts'
import { ready } from '../memes/fixtures.ts'
import { insertMeme } from '../support/memes.ts'
import { launch, memePng, screenshot, serve, watchErrors } from './browser.ts'

const hashOf = async (image: Buffer) => perceptualHash(await classifierPixels(await decode(image)))

test('gallery: find by image through the picker or a drop, look-alikes shown with their distance', {
  skip: chromiumMissing(),
}, async (t) => {
  const { app, base } = await serve(t, { CAPTIONER: 'none', SIMILAR_RATE_LIMIT: '1000' })
  if (!expectRoutes(t, app, [['POST', '/api/memes/similar']])) return
  await ready(app)
  const picture = await memePng(7, 'FIND ME')
  const flat = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer()
  const found = await insertMeme(app, picture, { status: 'approved', caption: 'the one to find', phash: await hashOf(picture) })
  const plain = await insertMeme(app, flat, { status: 'approved', caption: 'flat blue', phash: await hashOf(flat) })

  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(`${base}/`)
  const status = page.locator('#find-status')
  t.ok(await page.locator('#find-button').isDisabled(), 'nothing chosen yet')

  // A JPEG copy of a stored meme, through the picker.
  const copy = await sharp(picture).resize(400).jpeg({ quality: 70 }).toBuffer()
  await page.setInputFiles('#find-input', { name: 'copy.jpg', mimeType: 'image/jpeg', buffer: copy })
  await page.click('#find-button')
  await status.filter({ hasText: 'like “copy.jpg”' }).waitFor()
  const first = page.locator('#find-results li').first()
  t.equal(await first.locator('a').getAttribute('data-meme'), found, 'the copied meme comes first')
  t.match(await first.locator('.distance').textContent(), /^(same picture|\d+ bits? apart)$/)
  await page.waitForFunction(() => {
    const img = document.querySelector('#find-results img') as HTMLImageElement | null
    return img?.complete && img.naturalWidth > 0
  })
  await screenshot(page, 'meme-catalog-find-by-image.png')

  // The same picture dropped on the zone: distance 0.
  const dropped = await page.evaluateHandle(
    (bytes) => {
      const data = new DataTransfer()
      data.items.add(new File([new Uint8Array(bytes)], 'blue.png', { type: 'image/png' }))
      return data
    },
    [...flat],
  )
  await page.dispatchEvent('#find-drop', 'drop', { dataTransfer: dropped })
  await status.filter({ hasText: 'like “blue.png”' }).waitFor()
  const match = page.locator(`#find-results a[data-meme="${plain}"]`)
  t.equal(await match.locator('.distance').textContent(), 'same picture')
  await match.click()
  await page.locator('#viewer[open]').waitFor()
  t.match(page.url(), `meme=${plain}`, 'a result opens the viewer')
  await page.click('#viewer-close')

  // A file the server would refuse is refused in the page, the earlier results cleared.
  await page.setInputFiles('#find-input', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
  await page.click('#find-button')
  await status.filter({ hasText: 'Only PNG and JPEG images' }).waitFor()
  t.equal(await page.locator('#find-results li').count(), 0)
  t.same(errors, [], 'no script errors or policy violations')
})

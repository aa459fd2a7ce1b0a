import { createHash } from 'node:crypto'
import { expectRoutes } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import sharp from 'sharp'
import { test } from 'tap'
import { launch, memePng, screenshot, serve, watchErrors } from './browser.ts'

const ADMIN_TOKEN = 'web-test-admin-token-7f3a9c'
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

test('admin page: sign in, review near-duplicates, edit, approve; the meme reaches the gallery', {
  skip: chromiumMissing(),
}, async (t) => {
  // Review score 0: every upload waits for an admin.
  const { app, base } = await serve(t, { ADMIN_TOKEN, MODERATION_REVIEW_SCORE: '0', CAPTIONER: 'none' })
  const needed: ['GET' | 'POST' | 'PATCH' | 'DELETE', string][] = [
    ['POST', '/api/memes'],
    ['GET', '/api/admin/memes'],
    ['GET', '/api/admin/memes/:id/media'],
    ['POST', '/api/admin/memes/:id/approve'],
    ['POST', '/api/admin/memes/:id/reject'],
    ['PATCH', '/api/admin/memes/:id'],
    ['GET', '/api/admin/tags'],
    ['POST', '/api/admin/tags'],
    ['DELETE', '/api/admin/tags/:name'],
  ]
  if (!expectRoutes(t, app, needed)) return
  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)

  // Two uploads of the same picture (PNG, then the same as JPEG): both queued, the second flagged as a near-duplicate.
  const png = await memePng(21, 'REVIEW ME')
  const jpeg = await sharp(png).jpeg({ quality: 80 }).toBuffer()
  const [first, second] = [sha256(png), sha256(jpeg)]
  await page.goto(`${base}/`)
  const result = page.locator('#upload-result')
  for (const [name, mimeType, buffer] of [
    ['review.png', 'image/png', png],
    ['review.jpg', 'image/jpeg', jpeg],
  ] as const) {
    await page.setInputFiles('#file-input', { name, mimeType, buffer })
    await page.click('#upload-button')
    await result.locator('strong', { hasText: 'Upload queued for admin review.' }).waitFor({ timeout: 60_000 })
    t.match(await result.textContent(), /once an admin approves it/)
  }
  t.equal(await page.locator(`#grid img[src="/media/${first}"]`).count(), 0, 'pending memes are not public')

  // A wrong token is refused and forgotten.
  await page.goto(`${base}/admin`)
  await page.fill('#token', 'not-the-admin-token-at-all')
  await page.click('#login-form button[type="submit"]')
  await page.locator('#admin-status', { hasText: 'not accepted' }).waitFor()
  t.equal(await page.evaluate(() => sessionStorage.length), 0)

  await page.fill('#token', ADMIN_TOKEN)
  await page.press('#token', 'Enter')
  await page.locator('#queue-info', { hasText: '2 pending memes.' }).waitFor()
  t.equal(
    await page.evaluate(() => Object.values(sessionStorage).includes('web-test-admin-token-7f3a9c')),
    true,
    'token in sessionStorage',
  )
  t.equal(await page.evaluate(() => localStorage.length), 0, 'and nowhere persistent')
  t.equal(await page.inputValue('#token'), '', 'the field does not keep it')

  // The near-duplicate is shown side by side with the meme it resembles, both images loaded with the token.
  const dup = page.locator(`#queue li[data-id="${second}"] .duplicates`)
  await dup.waitFor()
  const pictures = dup.locator('img')
  t.equal(await pictures.count(), 2)
  await page.waitForFunction(
    (id) =>
      Array.from(document.querySelectorAll(`li[data-id="${id}"] img`)).every(
        (img) => (img as HTMLImageElement).src.startsWith('blob:') && (img as HTMLImageElement).complete,
      ),
    second,
  )
  await screenshot(page, 'meme-catalog-admin-review.png')

  // A new catalog tag, then caption and tags edited and approved.
  await page.fill('#new-tag', 'Reviewed')
  await page.click('#tag-form button[type="submit"]')
  await page.locator('#tag-catalog li[data-tag="reviewed"]').waitFor()
  const item = page.locator(`#queue li[data-id="${first}"]`)
  await item.locator('textarea').fill('Approved through the admin page <b>not bold</b>')
  await item.locator('label', { hasText: 'reviewed' }).click()
  await item.locator('button[type="submit"]').click()
  await page.locator('#admin-status', { hasText: 'Saved the caption and tags of review.png' }).waitFor()
  await item.locator('button[data-action="approve"]').click()
  await page.locator('#admin-status', { hasText: 'Approved review.png.' }).waitFor()
  await page.locator('#queue-info', { hasText: '1 pending meme.' }).waitFor()
  await page.locator(`#queue li[data-id="${second}"] button[data-action="reject"]`).click()
  await page.locator('#queue-info', { hasText: 'No pending memes.' }).waitFor()

  // The approved meme is public, with the admin's caption (as text, not markup) and tag.
  await page.goto(`${base}/?tag=reviewed`)
  const card = page.locator(`#grid a[data-meme="${first}"]`)
  await card.waitFor()
  t.equal(await card.locator('.caption').textContent(), 'Approved through the admin page <b>not bold</b>')
  t.equal(await card.locator('b').count(), 0, 'the caption is text, never markup')
  t.equal(await card.locator('img').getAttribute('src'), `/media/${first}`)
  t.equal(await page.locator('#grid .card').count(), 1, 'the rejected one is not')

  // Removing the tag from the catalog.
  await page.goto(`${base}/admin`)
  page.once('dialog', (dialog) => dialog.accept())
  await page.click('#tag-catalog button[data-remove="reviewed"]')
  await page.locator('#admin-status', { hasText: 'Removed the tag “reviewed”.' }).waitFor()
  t.equal(await page.locator('#tag-catalog li[data-tag="reviewed"]').count(), 0)

  await page.click('#sign-out')
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'forgetting the token clears it')
  t.same(errors, [], 'no script errors or policy violations')
})

test('admin page: without a configured token the page says the admin API is off', { skip: chromiumMissing() }, async (t) => {
  // Without ADMIN_TOKEN the admin routes do not exist at all: every admin call is a 404.
  const { base } = await serve(t, {})
  const context = await launch(t)
  const page = await context.newPage()
  await page.goto(`${base}/admin`)
  await page.fill('#token', 'some-token-of-some-length')
  await page.press('#token', 'Enter')
  await page.locator('#admin-status', { hasText: 'not enabled' }).waitFor()
  t.ok(await page.locator('#workspace').isHidden())
})

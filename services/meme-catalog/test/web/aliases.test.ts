import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { ready } from '../memes/fixtures.ts'
import { insertMeme, plainImage } from '../support/memes.ts'
import { launch, screenshot, serve, watchErrors } from './browser.ts'

const ADMIN_TOKEN = 'web-test-admin-token-aliases-51c2'

test('admin page manages tag aliases; the gallery finds the tag by its alias', { skip: chromiumMissing() }, async (t) => {
  const { app, base } = await serve(t, { ADMIN_TOKEN, CAPTIONER: 'none' })
  await ready(app)
  const cat = await insertMeme(app, await plainImage(90), { caption: 'a sleepy animal', tags: ['cats'] })
  await insertMeme(app, await plainImage(91), { caption: 'a loud animal', tags: ['dogs'] })
  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)

  await page.goto(`${base}/admin`)
  await page.fill('#token', ADMIN_TOKEN)
  await page.press('#token', 'Enter')
  await page.locator('#tag-catalog li[data-tag="cats"]').waitFor()
  await page.selectOption('#alias-tag', 'cats')
  await page.fill('#new-alias', '  Kitty ')
  await page.click('#alias-form button[type="submit"]')
  await page.locator('#admin-status', { hasText: 'Added the alias “kitty” of “cats”.' }).waitFor()
  const chip = page.locator('#tag-catalog li[data-tag="cats"] .alias[data-alias="kitty"]')
  await chip.waitFor()
  t.match(await chip.textContent(), /aka kitty/)
  t.equal(await page.inputValue('#alias-tag'), 'cats', 'the chosen tag stays selected')

  // Shadowing a tag is refused with the API's message.
  await page.fill('#new-alias', 'dogs')
  await page.click('#alias-form button[type="submit"]')
  await page.locator('#admin-status.error', { hasText: '"dogs" is a tag' }).waitFor()
  t.equal(await page.locator('#tag-catalog .alias[data-alias="dogs"]').count(), 0)
  await screenshot(page, 'meme-catalog-admin-aliases.png')

  // The gallery: the alias as a tag filter and as a search word.
  const gallery = await context.newPage()
  const galleryErrors = watchErrors(gallery)
  await gallery.goto(`${base}/?tag=kitty`)
  await gallery.locator(`#grid a[data-meme="${cat}"]`).waitFor()
  t.equal(await gallery.locator('#grid .card').count(), 1, 'the tag filter naming the alias')
  await gallery.goto(`${base}/?q=kitty`)
  await gallery.locator(`#grid a[data-meme="${cat}"]`).waitFor()
  t.equal(await gallery.locator('#grid .card').count(), 1, 'the search word naming the alias')
  t.same(galleryErrors, [])

  // Removed through the page: the alias finds nothing any more.
  await page.click('#tag-catalog button[data-remove-alias="kitty"]')
  await page.locator('#admin-status', { hasText: 'Removed the alias “kitty” of “cats”.' }).waitFor()
  t.equal(await page.locator('#tag-catalog .alias').count(), 0)
  t.equal((await app.inject('/api/memes?tag=kitty')).json().total, 0)
  t.same(errors, [], 'no script errors or policy violations')
})

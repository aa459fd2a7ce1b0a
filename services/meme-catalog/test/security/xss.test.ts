import { chromiumMissing } from '@app/testing/browser'
import type { Page } from 'playwright-core'
import { type Test, test } from 'tap'
import { launch, memePng, screenshot, serve, watchErrors } from '../web/browser.ts'

const ADMIN_TOKEN = 'xss-test-admin-token-4e7b1d'
const IMG = '<img src=x onerror="window.__xss=1">'
const SCRIPT = '<script>window.__xss=1</script>'
const CAPTION = `${IMG} ${SCRIPT} "><svg onload=window.__xss=1> javascript:window.__xss=1`
// Tag names as hostile as the catalog may store (lowercased by the server; these are already lowercase).
const TAGS = [IMG, SCRIPT, '"><svg/onload=window.__xss=1>', "'-window.__xss=1-'"]

/** Nothing ran, no injected element exists, and the page shows what it was given. */
async function assertInert(t: Test, page: Page, where: string) {
  const state = await page.evaluate(() => ({
    xss: (window as unknown as { __xss?: unknown }).__xss,
    imgX: document.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload]').length,
    inlineScripts: Array.from(document.scripts).filter((s) => !s.src || s.textContent?.includes('__xss')).length,
  }))
  t.equal(state.xss, undefined, `${where}: window.__xss was never set`)
  t.equal(state.imgX, 0, `${where}: no <img src=x> or handler attribute in the DOM`)
  t.equal(state.inlineScripts, 0, `${where}: no inline script element`)
}

test('hostile captions and tag names are shown as text on every page, never run', { skip: chromiumMissing() }, async (t) => {
  const { app, base } = await serve(t, { ADMIN_TOKEN, CAPTIONER: 'none' })
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }

  // Markup in a tag name is not refused (the catalog only normalizes case and space): the pages must cope.
  for (const name of TAGS) {
    const res = await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name } })
    t.equal(res.statusCode, 201, `tag ${name}: ${res.body}`)
    t.equal(res.json().tag.name, name, 'stored as given')
  }
  // Control characters are the only refusal: a name that would break out of a line is a 400 {"error"}.
  const control = await app.inject({ method: 'POST', url: '/api/admin/tags', headers: auth, payload: { name: 'a\u202eb' } })
  t.equal(control.statusCode, 400)
  t.match(control.json(), { error: 'Tag name contains control characters.' })

  // An approved meme through the real upload, then the hostile caption and tags set by the admin API.
  const form = new FormData()
  form.append('meme', new Blob([new Uint8Array(await memePng(71, 'XSS'))], { type: 'image/png' }), `${IMG}.png`)
  const upload = await fetch(`${base}/api/memes`, { method: 'POST', body: form })
  t.equal(upload.status, 201, 'approved at once')
  const id = ((await upload.json()) as { meme: { id: string } }).meme.id
  const patch = await app.inject({
    method: 'PATCH',
    url: `/api/admin/memes/${id}`,
    headers: auth,
    payload: { caption: CAPTION, tags: TAGS },
  })
  t.equal(patch.statusCode, 200, patch.body)
  t.equal(patch.json().meme.caption, CAPTION, 'the caption is stored verbatim')
  t.same([...patch.json().meme.tags].sort(), [...TAGS].sort())
  const api = await app.inject(`/api/memes/${id}`)
  t.match(api.headers['content-type'], /^application\/json/, 'the API never serves the caption as HTML')

  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)

  // Gallery: the card caption and the tag chips.
  await page.goto(`${base}/`)
  const card = page.locator(`#grid a[data-meme="${id}"]`)
  await card.waitFor()
  t.equal(await card.locator('.caption').textContent(), CAPTION, 'gallery caption shown literally')
  for (const name of TAGS) {
    t.ok(await page.locator('#tag-chips').getByText(name, { exact: false }).count(), `tag chip ${name} shown as text`)
  }
  await assertInert(t, page, 'gallery')

  // Meme view (dialog): caption and tag buttons.
  await page.goto(`${base}/?meme=${id}`)
  const viewer = page.locator('#viewer-body')
  await viewer.locator('.caption').waitFor()
  t.equal(await viewer.locator('.caption').textContent(), CAPTION, 'viewer caption shown literally')
  const viewerText = (await viewer.textContent()) ?? ''
  for (const name of TAGS) t.ok(viewerText.includes(name), `viewer tag ${name} shown as text`)
  await screenshot(page, 'meme-catalog-xss-viewer.png')
  await assertInert(t, page, 'meme view')

  // Filtering by a hostile tag and a hostile search, both taken from the URL (reflected DOM XSS).
  await page.goto(`${base}/?tag=${encodeURIComponent(IMG)}`)
  await card.waitFor()
  await assertInert(t, page, 'gallery filtered by a hostile tag')
  await page.goto(`${base}/?q=${encodeURIComponent(`${SCRIPT} ${IMG}`)}`)
  await page.locator('#gallery-status').filter({ hasText: /\S/ }).waitFor()
  t.equal(await page.inputValue('#q'), `${SCRIPT} ${IMG}`, 'the query is kept as text in the search box')
  await assertInert(t, page, 'gallery with a hostile query')

  // Admin page: the approved meme in the review list (caption in a textarea, tags as labels) and the catalog.
  await page.goto(`${base}/admin`)
  await page.fill('#token', ADMIN_TOKEN)
  await page.press('#token', 'Enter')
  await page.locator('#workspace').waitFor()
  await page.selectOption('#status-filter', 'approved')
  const item = page.locator(`#queue li[data-id="${id}"]`)
  await item.waitFor()
  t.equal(await item.locator('textarea').inputValue(), CAPTION, 'admin caption field holds the text')
  const itemText = (await item.textContent()) ?? ''
  for (const name of TAGS) t.ok(itemText.includes(name), `admin tag ${name} shown as text`)
  const catalogText = (await page.locator('#tag-catalog').textContent()) ?? ''
  for (const name of TAGS) t.ok(catalogText.includes(name), `catalog tag ${name} shown as text`)
  await screenshot(page, 'meme-catalog-xss-admin.png')
  await assertInert(t, page, 'admin page')

  t.same(errors, [], 'no script errors, CSP or Trusted Types violations')
})

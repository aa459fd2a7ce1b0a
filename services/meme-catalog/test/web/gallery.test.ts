import { setTimeout as sleep } from 'node:timers/promises'
import { expectRoutes } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { launch, screenshot, serve, watchErrors } from './browser.ts'

const cardCaptions = (page: import('playwright-core').Page) => page.locator('#grid .card .caption').allTextContents()

test('gallery: browse, search with a typo, filter by tags, view a meme', { skip: chromiumMissing() }, async (t) => {
  const { app, base } = await serve(t, { DEMO_MEMES: 'true' })
  const routes: ['GET', string][] = [
    ['GET', '/api/memes'],
    ['GET', '/api/memes/:id'],
    ['GET', '/api/tags'],
    ['GET', '/media/:id'],
  ]
  if (!expectRoutes(t, app, routes)) return
  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)
  const api = async (url: string) => (await app.inject({ method: 'GET', url })).json()

  // The demo memes reach the read model one by one after start-up: wait until every one is listed.
  const seeded = await app.demo.seeded
  for (let i = 0; i < 300 && (await api('/api/memes')).total < seeded; i++) await sleep(100)
  await page.goto(`${base}/`)
  const all = await api('/api/memes?pageSize=24')
  t.ok(all.total >= 24, `demo memes are there (${all.total})`)
  await page.locator('#grid .card').first().waitFor()
  t.same(
    await cardCaptions(page),
    all.memes.map((m: { caption: string }) => m.caption),
    'newest first, like the API',
  )
  const firstImg = page.locator('#grid .card img').first()
  t.equal(await firstImg.getAttribute('loading'), 'lazy')
  t.equal(await firstImg.getAttribute('width'), String(all.memes[0].width), 'width reserved')
  t.equal(await firstImg.getAttribute('height'), String(all.memes[0].height), 'height reserved')
  t.equal(await firstImg.getAttribute('src'), `/media/${all.memes[0].id}`)
  t.equal(await firstImg.getAttribute('alt'), all.memes[0].caption, 'alt text is the caption')
  t.equal(await page.locator('#page-info').textContent(), `Page 1 of ${all.totalPages}`)
  await page
    .locator('#grid .card img')
    .first()
    .evaluate((img: HTMLImageElement) => img.decode())
  await screenshot(page, 'meme-catalog-gallery.png')

  // Paging is in the URL.
  await page.click('#next-page')
  await page.waitForURL(/[?&]page=2/)
  await page.locator('#page-info', { hasText: `Page 2 of ${all.totalPages}` }).waitFor()
  await page.goBack()
  await page.locator('#page-info', { hasText: 'Page 1 of' }).waitFor()

  // Search as you type, with spelling mistakes and no accents.
  const typo = await api('/api/memes?pageSize=24&q=jalapno+pizzza')
  t.same(
    typo.memes.map((m: { caption: string }) => m.caption),
    ['Jalapeño pizza was a mistake'],
    'the API finds the demo meme by a typo',
  )
  await page.fill('#q', 'jalapno pizzza')
  await page.locator('#gallery-status', { hasText: '1 meme match “jalapno pizzza”' }).waitFor()
  t.same(await cardCaptions(page), ['Jalapeño pizza was a mistake'], 'the page shows it')
  await page.waitForURL(/q=jalapno\+pizzza/)
  await page.reload()
  t.equal(await page.inputValue('#q'), 'jalapno pizzza', 'the query survives a reload')
  await page.locator('#gallery-status', { hasText: '1 meme match “jalapno pizzza”' }).waitFor()
  t.same(await cardCaptions(page), ['Jalapeño pizza was a mistake'])

  // Empty state.
  await page.fill('#q', 'xylophonequartet')
  await page.locator('#gallery-status', { hasText: 'No memes match “xylophonequartet”' }).waitFor()
  t.equal(await page.locator('#grid .card').count(), 0)

  // A query with no searchable word: the API's 400 message is shown as it is.
  const bad = await app.inject({ method: 'GET', url: '/api/memes?q=%21%21%21' })
  t.equal(bad.statusCode, 400)
  await page.fill('#q', '!!!')
  await page.locator('#gallery-status', { hasText: bad.json().error }).waitFor()
  t.equal(await page.locator('#grid .card').count(), 0)

  // Tag chips filter with AND.
  await page.fill('#q', '')
  await page.locator('#gallery-status', { hasText: 'newest first' }).waitFor()
  const dogs = await api('/api/memes?tag=dogs&pageSize=48')
  await page.click('#tag-chips button[data-tag="dogs"]')
  await page.waitForURL(/tag=dogs/)
  await page.locator('#gallery-status', { hasText: `${dogs.total} memes match tags dogs` }).waitFor()
  t.same(
    await cardCaptions(page),
    dogs.memes.map((m: { caption: string }) => m.caption),
    'only dog memes',
  )
  t.equal(await page.getAttribute('#tag-chips button[data-tag="dogs"]', 'aria-pressed'), 'true')
  await page.click('#tag-chips button[data-tag="food"]')
  await page.locator('#gallery-status', { hasText: '1 meme match tags dogs + food' }).waitFor()
  t.same(await cardCaptions(page), ['Dog waiting for the pizza delivery'], 'both tags required')
  t.match(page.url(), /tag=dogs&tag=food/)

  // The meme view: caption, tags as filters, size, date, download link.
  const meme = dogs.memes.find((m: { caption: string }) => m.caption === 'Dog waiting for the pizza delivery')
  await page.click('#grid .card')
  const viewer = page.locator('#viewer')
  await viewer.locator('.caption', { hasText: meme.caption }).waitFor()
  t.match(page.url(), new RegExp(`meme=${meme.id}`), 'the open meme is in the URL')
  t.equal(await viewer.locator('a.download').getAttribute('href'), meme.downloadUrl)
  t.match(await viewer.locator('.facts').textContent(), new RegExp(`${meme.width} × ${meme.height} px`))
  t.equal(await viewer.locator('time').getAttribute('datetime'), meme.createdAt)
  await viewer.locator('button.chip', { hasText: 'food' }).click()
  await page.locator('#gallery-status', { hasText: 'match tags food' }).waitFor()
  t.notOk(await viewer.isVisible(), 'choosing a tag closes the view and filters')
  t.match(page.url(), /\?tag=food$/)

  // A shared link opens the meme view directly; Escape closes it.
  await page.goto(`${base}/?meme=${meme.id}`)
  await viewer.locator('.caption', { hasText: meme.caption }).waitFor()
  await page.keyboard.press('Escape')
  await page.waitForURL(`${base}/`)

  // Keyboard: a card is a link; Enter opens the view, Escape closes it and focus returns to the card.
  await page.goto(`${base}/?tag=food`)
  const firstCard = page.locator('#grid .card').first()
  await firstCard.focus()
  await page.keyboard.press('Enter')
  await viewer.locator('a.download').waitFor()
  await page.keyboard.press('Escape')
  t.ok(await firstCard.evaluate((el) => el === document.activeElement), 'focus returns to the card')

  // Small screens: the grid reflows, nothing scrolls sideways.
  await page.setViewportSize({ width: 375, height: 740 })
  await page.goto(`${base}/`)
  await page.locator('#grid .card').first().waitFor()
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal scroll at 375 px')

  t.same(errors, [], 'no script errors or policy violations')
})

test('gallery: a rate-limited read says when to retry', { skip: chromiumMissing() }, async (t) => {
  // An hour-long window: the budget cannot refill between the page load and the searches.
  const { app, base } = await serve(t, { DEMO_MEMES: 'true', READ_RATE_LIMIT: '3', RATE_LIMIT_WINDOW_SECONDS: '3600' })
  if (!expectRoutes(t, app, [['GET', '/api/memes']])) return
  // The demo memes are drawn after start-up; polling the API for them would spend the read budget.
  t.ok((await app.demo.seeded) > 0, 'demo memes stored')
  const context = await launch(t)
  const page = await context.newPage()
  await page.goto(`${base}/`)
  await page.locator('#grid .card').first().waitFor()
  // Two reads so far (tags and the list); the next searches spend the rest of the budget.
  let limited = false
  for (const q of ['cat', 'dog', 'coffee', 'pizza']) {
    const answer = page.waitForResponse((r) => r.url().includes('/api/memes?'))
    await page.fill('#q', q)
    if ((await answer).status() === 429) {
      limited = true
      break
    }
  }
  t.ok(limited, 'the read budget ran out')
  const status = page.locator('#gallery-status', { hasText: /Try again in \d+ (seconds|minutes)/ })
  await status.waitFor()
  t.match(await status.textContent(), /\S.* Try again in \d+ (seconds|minutes) \(at .+\)\.$/, 'the server message, then when')
})

test('gallery: a Trending tab beside Newest, by keyboard, in the URL', { skip: chromiumMissing() }, async (t) => {
  // The browser's image reads count views too: only the flush below may move memes in the trending order.
  const { app, base } = await serve(t, { DEMO_MEMES: 'true', MEDIA_COUNTER_FLUSH_MS: String(3_600_000) })
  if (
    !expectRoutes(t, app, [
      ['GET', '/api/memes'],
      ['GET', '/api/memes/trending'],
    ])
  )
    return
  const api = async (url: string) => (await app.inject({ method: 'GET', url })).json()
  // Every demo meme in the read model first: the orders compared below are of the whole catalog.
  const seeded = await app.demo.seeded
  for (let i = 0; i < 300 && (await api('/api/memes')).total < seeded; i++) await sleep(100)
  t.equal((await api('/api/memes')).total, seeded, `demo memes are there (${seeded})`)
  // The oldest memes get views (the second oldest more): trending differs from newest.
  const newest = (await api('/api/memes?pageSize=48')).memes as { id: string; caption: string }[]
  const [oldest, secondOldest] = [newest.at(-1), newest.at(-2)] as { id: string; caption: string }[]
  for (let i = 0; i < 3; i++) await app.inject(`/media/${secondOldest.id}`)
  await app.inject(`/media/${oldest.id}`)
  await app.mediaCounters.flush()
  const trending = await api('/api/memes/trending?pageSize=24')
  t.same(
    trending.memes.slice(0, 2).map((m: { id: string }) => m.id),
    [secondOldest.id, oldest.id],
  )

  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(`${base}/`)
  await page.locator('#grid .card').first().waitFor()
  const newestTab = page.locator('#tab-newest')
  const trendingTab = page.locator('#tab-trending')
  t.equal(await page.locator('#order-tabs').getAttribute('role'), 'tablist')
  t.equal(await newestTab.getAttribute('aria-selected'), 'true')
  t.equal(await trendingTab.getAttribute('tabindex'), '-1', 'one tab stop: the selected tab')

  await newestTab.focus()
  await page.keyboard.press('ArrowRight')
  await page.waitForURL(/order=trending/)
  await page.locator('#gallery-status', { hasText: 'trending first' }).waitFor()
  t.equal(await trendingTab.getAttribute('aria-selected'), 'true')
  t.equal(await page.evaluate(() => document.activeElement?.id), 'tab-trending', 'focus follows the selection')
  t.same(
    await cardCaptions(page),
    trending.memes.map((m: { caption: string }) => m.caption),
    'the trending order, like the API',
  )
  await screenshot(page, 'meme-catalog-trending.png')
  await page.reload()
  await page.locator('#gallery-status', { hasText: 'trending first' }).waitFor()
  t.equal(await trendingTab.getAttribute('aria-selected'), 'true', 'the tab survives a reload')

  await trendingTab.focus()
  await page.keyboard.press('ArrowLeft')
  await page.locator('#gallery-status', { hasText: 'newest first' }).waitFor()
  t.equal(await newestTab.getAttribute('aria-selected'), 'true')
  t.notMatch(page.url(), /order=/)
  t.same(
    await cardCaptions(page),
    newest.slice(0, 24).map((m) => m.caption),
  )

  // A search lists by relevance: typing while on Trending shows the Newest tab selected.
  await trendingTab.click()
  await page.locator('#gallery-status', { hasText: 'trending first' }).waitFor()
  await page.fill('#q', 'jalapeno')
  await page.locator('#gallery-status', { hasText: 'match “jalapeno”' }).waitFor()
  t.equal(await newestTab.getAttribute('aria-selected'), 'true')
  t.same(errors, [], 'no script errors or policy violations')
})

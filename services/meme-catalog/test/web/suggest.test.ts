import { setTimeout as sleep } from 'node:timers/promises'
import { expectRoutes } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { launch, screenshot, serve, watchErrors } from './browser.ts'

type Json = Record<string, any>

test('search box: an ARIA combobox of completions, and matches marked on the cards', { skip: chromiumMissing() }, async (t) => {
  const { app, base } = await serve(t, { DEMO_MEMES: 'true' })
  if (
    !expectRoutes(t, app, [
      ['GET', '/api/memes/suggest'],
      ['GET', '/api/memes'],
    ])
  )
    return
  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)
  const api = async (url: string) => (await app.inject({ method: 'GET', url })).json()
  for (let i = 0; i < 300 && (await api('/api/memes?q=jalapeno')).total === 0; i++) await sleep(100)

  await page.goto(`${base}/`)
  await page.locator('#grid .card').first().waitFor()
  const input = page.locator('#q')
  const listbox = page.locator('#q-suggestions')
  t.equal(await input.getAttribute('role'), 'combobox')
  t.equal(await input.getAttribute('aria-controls'), 'q-suggestions')
  t.equal(await input.getAttribute('aria-expanded'), 'false')
  t.equal(await listbox.getAttribute('role'), 'listbox')

  // Typing offers the API's completions, in its order, with their counts.
  await input.focus()
  await input.pressSequentially('my ja', { delay: 30 })
  await listbox.locator('[role="option"]').first().waitFor()
  const expected = (await api('/api/memes/suggest?q=my%20ja')).suggestions as Json[]
  t.ok(expected.length >= 1, 'the API completes "ja"')
  t.same(
    await listbox.locator('[role="option"] .value').allTextContents(),
    expected.map((s) => s.value),
  )
  t.same(
    await listbox.locator('[role="option"] .count').allTextContents(),
    expected.map((s) => `${s.count} ${s.count === 1 ? 'meme' : 'memes'}`),
  )
  t.equal(await input.getAttribute('aria-expanded'), 'true')
  t.notOk(await input.getAttribute('aria-activedescendant'), 'no option is active before the arrow keys')
  t.equal(await page.evaluate(() => document.activeElement?.id), 'q', 'focus stays in the input')

  // Arrow keys move the active option (aria-activedescendant, aria-selected), wrapping around.
  await input.press('ArrowDown')
  const first = listbox.locator('[role="option"]').first()
  t.equal(await input.getAttribute('aria-activedescendant'), await first.getAttribute('id'))
  t.equal(await first.getAttribute('aria-selected'), 'true')
  await input.press('ArrowUp')
  const last = listbox.locator('[role="option"]').last()
  t.equal(await input.getAttribute('aria-activedescendant'), await last.getAttribute('id'), 'up from the first is the last')
  await input.press('ArrowDown')
  await screenshot(page, 'meme-catalog-suggest.png')

  // Escape closes the list and keeps the text.
  await input.press('Escape')
  t.equal(await listbox.isHidden(), true)
  t.equal(await input.getAttribute('aria-expanded'), 'false')
  t.notOk(await input.getAttribute('aria-activedescendant'))
  t.equal(await input.inputValue(), 'my ja')

  // Enter takes the active option: the last word is replaced and the gallery searches it.
  await input.fill('')
  await input.pressSequentially('jalap', { delay: 30 })
  await listbox.locator('[role="option"]', { hasText: 'jalapeno' }).waitFor()
  const options = await listbox.locator('[role="option"] .value').allTextContents()
  for (let i = 0; i <= options.indexOf('jalapeno'); i++) await input.press('ArrowDown')
  await input.press('Enter')
  t.equal(await input.inputValue(), 'jalapeno')
  t.equal(await listbox.isHidden(), true)
  await page.locator('#gallery-status', { hasText: 'match “jalapeno”' }).waitFor()
  await page.waitForURL(/q=jalapeno/)

  // The match is marked with a <mark> element around the original (accented) word.
  const caption = page.locator('#grid .card .caption').first()
  t.equal(await caption.textContent(), 'Jalapeño pizza was a mistake')
  t.same(await caption.locator('mark').allTextContents(), ['Jalapeño'])

  // A typo and a tag: a tag completion becomes a filter, and the tag is marked whole.
  await input.fill('')
  await input.pressSequentially('fo', { delay: 30 })
  const tagOption = listbox.locator('[role="option"].tag', { hasText: 'food' })
  await tagOption.waitFor()
  await tagOption.dispatchEvent('mousedown')
  await page.waitForURL(/tag=food/)
  t.equal(await input.inputValue(), '', 'the typed word gave way to the filter')
  await page.locator('#gallery-status', { hasText: 'tags food' }).waitFor()
  const food = await api('/api/memes?tag=food&pageSize=24')
  t.equal(await page.locator('#grid .card').count(), food.memes.length)
  t.same(
    await page.locator('#grid .card .matched-tags mark').allTextContents(),
    food.memes.map(() => 'food'),
    'each card marks the filtered tag',
  )

  // A tag alias is offered as itself, naming its tag; taking it filters by the tag.
  t.ok('added' in (await app.tagUseCases.addAlias('admin:test', 'cats', 'kitty')))
  await page.goto(`${base}/`)
  await page.locator('#grid .card').first().waitFor()
  await input.pressSequentially('kitt', { delay: 30 })
  const aliasOption = listbox.locator('[role="option"].tag', { hasText: 'kitty' })
  await aliasOption.waitFor()
  t.equal(await aliasOption.locator('.alias-of').textContent(), '→ cats')
  const cats = await api('/api/memes?tag=cats&pageSize=24')
  t.equal(await aliasOption.locator('.count').textContent(), `${cats.total} memes`, 'counted by the tag')
  await aliasOption.dispatchEvent('mousedown')
  await page.waitForURL(/tag=cats/)
  await page.locator('#gallery-status', { hasText: 'tags cats' }).waitFor()

  // Marks are elements with text: a caption full of markup stays text.
  const html = await page.locator('#grid').evaluate((grid) => grid.querySelectorAll('script, img:not([src^="/media/"])').length)
  t.equal(html, 0)
  t.same(errors, [], 'no script errors or policy violations')
})

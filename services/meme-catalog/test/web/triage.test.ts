import { expectRoutes } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { ready } from '../memes/fixtures.ts'
import { addTags, insertMeme } from '../support/memes.ts'
import { launch, memePng, screenshot, serve, watchErrors } from './browser.ts'

const ADMIN_TOKEN = 'web-test-admin-token-9b1d4e'

test('admin triage: near-duplicates side by side, a suggestion added in one click, keyboard review', {
  skip: chromiumMissing(),
}, async (t) => {
  const { app, base } = await serve(t, { ADMIN_TOKEN, CAPTIONER: 'none', CAPTION_CONCURRENCY: '0' })
  if (!expectRoutes(t, app, [['GET', '/api/admin/review']])) return
  await ready(app)
  await addTags(app.db, 'cats', 'penguin', 'sunday brunch')
  await app.db.query(`INSERT INTO tag_aliases (alias, tag) VALUES ('kitty', 'cats')`)
  const at = (minutes: number) => new Date(Date.parse('2026-02-01T00:00:00Z') + minutes * 60_000)
  const original = await insertMeme(app, await memePng(1, 'ORIGINAL'), {
    status: 'approved',
    phash: '00ff00ff00ff00ff',
    createdAt: at(0),
  })
  const first = await insertMeme(app, await memePng(2, 'FIRST'), {
    status: 'pending',
    caption: 'Sunday brnch with a kitty',
    phash: '00ff00ff00ff00fe',
    name: 'first.png',
    createdAt: at(1),
  })
  const second = await insertMeme(app, await memePng(3, 'SECOND'), { status: 'pending', name: 'second.png', createdAt: at(2) })
  const third = await insertMeme(app, await memePng(4, 'THIRD'), { status: 'pending', name: 'third.png', createdAt: at(3) })
  await app.db.query(`INSERT INTO meme_tag_suggestions (meme_id, tag) VALUES ($1, 'penguin')`, [second])
  const statusOf = async (id: string) =>
    (await app.db.query<{ status: string }>('SELECT status FROM memes WHERE id = $1', [id])).rows[0].status

  const context = await launch(t)
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(`${base}/admin`)
  await page.fill('#token', ADMIN_TOKEN)
  await page.press('#token', 'Enter')
  const position = page.locator('#triage-position')
  const shown = (id: string) => page.locator(`#triage-card article[data-id="${id}"]`).waitFor()
  await position.filter({ hasText: 'Upload 1 of 3 pending' }).waitFor()
  await shown(first)

  // The upload beside the approved meme it nearly duplicates, both pictures loaded.
  const duplicate = page.locator(`#triage-card figure[data-duplicate="${original}"]`)
  await duplicate.waitFor()
  t.match(await duplicate.textContent(), /1 bit apart/)
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll('#triage-card img')).every(
      (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
    ),
  )
  t.equal(await page.locator('#triage-card img').count(), 2)
  t.equal(await page.locator('#triage-card .triage-caption').textContent(), 'Sunday brnch with a kitty')
  t.same(await page.locator('#triage-card button[data-suggest]').allTextContents(), ['+ sunday brunch', '+ cats'])
  await screenshot(page, 'meme-catalog-admin-triage.png')

  // One click adds a suggestion through the audited tag edit; the other stays a suggestion.
  await page.click('#triage-card button[data-suggest="cats"]')
  await page.locator('#admin-status', { hasText: 'Added the tag “cats” to first.png.' }).waitFor()
  t.equal(await page.locator('#triage-card .triage-tags').textContent(), 'cats')
  t.same(await page.locator('#triage-card button[data-suggest]').allTextContents(), ['+ sunday brunch'])
  const tags = await app.db.query('SELECT tag FROM meme_tags WHERE meme_id = $1', [first])
  t.same(tags.rows, [{ tag: 'cats' }])
  const audit = await app.db.query('SELECT action FROM admin_audit WHERE meme_id = $1', [first])
  t.same(audit.rows, [{ action: 'meme.edit' }])

  // Typing in a field reviews nothing.
  await page.click('#new-tag')
  await page.keyboard.type('jar')
  t.equal(await page.inputValue('#new-tag'), 'jar')
  await shown(first)
  t.equal(await statusOf(first), 'pending', 'an "a" typed in a field approves nothing')
  await page.fill('#new-tag', '')
  await page.click('#triage-heading')

  // j/n next, k/p previous.
  await page.keyboard.press('j')
  await shown(second)
  await position.filter({ hasText: 'Upload 2 of 3 pending' }).waitFor()
  t.same(await page.locator('#triage-card button[data-suggest]').allTextContents(), ['+ penguin'], 'the model’s proposal')
  await page.keyboard.press('k')
  await shown(first)
  await page.keyboard.press('n')
  await shown(second)
  await page.keyboard.press('p')
  await shown(first)

  // a approves, r rejects; the next upload takes the place of the one decided.
  await page.keyboard.press('a')
  await shown(second)
  await position.filter({ hasText: 'Upload 1 of 2 pending' }).waitFor()
  t.equal(await statusOf(first), 'approved')
  await page.keyboard.press('r')
  await shown(third)
  t.equal(await statusOf(second), 'rejected')
  await page.locator('#queue-info', { hasText: '1 pending meme.' }).waitFor()
  await page.keyboard.press('j')
  await shown(third)
  t.ok(await page.locator('#triage-next').isDisabled(), 'the last upload: nothing next')
  t.equal(await statusOf(third), 'pending')
  t.same(errors, [], 'no script errors or policy violations')
})

import type { AddressInfo } from 'node:net'
import { startNodeSimulator } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { build, TEST_PASSWORD } from '../helper.ts'
import { startTamperedNode } from '../rpc/tampered-node.ts'
import { openBrowser } from './browser.ts'

const HOSTILE = '<img src=x onerror="window.__xss=1">'

// The Blocks screen, the fee-estimate card and chart in headless Chromium against the service and a simulated node.
test('blocks, mempool fee rates and fee estimates in the app', { skip: chromiumMissing() }, async (t) => {
  const app = await build(t, { env: { METRICS_SAMPLE_SECONDS: '1', MEMPOOL_FEES_MIN_SECONDS: '1' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const sim = await startNodeSimulator({ password: 'p' })
  t.teardown(() => sim.close())
  // Enough blocks with transactions for fee estimates; three transactions wait in the mempool.
  for (let i = 0; i < 12; i++) {
    sim.addTransactions(2)
    sim.mine(1)
  }
  sim.addTransactions(3)
  // The node's words pass through a proxy that can make them hostile.
  const node = await startTamperedNode(t, sim.url)
  await app.settingsCache.update({ rpc_url: node.url, rpc_username: 'u', rpc_password: 'p', rpc_wallet: '' })

  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true })
  await page.goto(`${base}/`)
  await page.getByLabel('Username', { exact: true }).fill('admin')
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD)
  await page.getByLabel('Password', { exact: true }).press('Enter')
  await page.getByRole('heading', { name: 'Overview' }).waitFor()

  await t.test('the overview shows the fee estimates per target', async (t) => {
    const fees = page.getByTestId('card-fees')
    await fees.waitFor()
    const text = await fees.textContent()
    t.match(text, /1 block\s*20 sat\/vB/)
    t.match(text, /6 blocks\s*13\.3 sat\/vB/)
    t.match(text, /144 blocks\s*13\.3 sat\/vB/, 'clamped by the node to 6 (it saw 12 blocks)')
    await browser.screenshot('blocks-01-overview-fees')
  })

  await t.test('the Blocks screen, reached by keyboard, lists the last blocks in a labelled table', async (t) => {
    // Tab to the Blocks link and follow it with Enter, as a keyboard user does.
    const link = nav('Blocks')
    await link.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Blocks', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: /The last 20 blocks/ })
    await table.waitFor()
    const headers = await table.getByRole('columnheader').allTextContents()
    t.same(headers, ['Height', 'Time', 'Transactions', 'Size', 'Weight', 'Total fees', 'Median fee rate', 'Hash'])
    const rows = table.locator('tbody tr')
    t.equal(await rows.count(), 20)
    t.equal(await rows.first().getAttribute('data-height'), '113')
    const first = await rows.first().getByRole('cell').allTextContents()
    // Block 113 confirmed two transactions of 222 bytes, 561 WU and 1410 sat each: 10 sat/vB.
    t.same([first[1], first[2], first[3], first[4], first[5]], ['3', '444 B', '1,122 WU', '2,820 sat', '10 sat/vB'])
    t.equal(await rows.first().getByRole('rowheader').textContent(), '113')
    await browser.screenshot('blocks-02-table')
  })

  await t.test('the mempool fee rates: transactions per bucket, then a new block moves the table', async (t) => {
    const fees = page.getByRole('table', { name: 'Mempool transactions by fee rate' })
    await fees.waitFor()
    const row = await fees.locator('tbody tr').first().textContent()
    t.match(row, /10–12 sat\/vB\s*3\s*423 B/)
    sim.mine(1)
    await page.getByRole('button', { name: 'Refresh now' }).click()
    await eventually(async () => (await page.locator('tbody tr').first().getAttribute('data-height')) === '114')
    await eventually(async () => (await page.getByText('The mempool is empty.').count()) === 1)
  })

  await t.test('the fee-estimate chart draws the sampled series', async (t) => {
    await nav('Charts').click()
    const points = await eventually(async () => {
      await page.getByRole('button', { name: '5m' }).click()
      const chart = page.locator('[data-chart="fees"]')
      await chart.waitFor({ timeout: 2000 })
      return Number(await chart.getAttribute('data-points'))
    })
    t.ok(points > 0, `${points} points`)
    t.ok(await page.getByRole('region', { name: 'Fee estimates (sat/vB)' }).isVisible())
    // Below the fold: scrolled into view, so the mouse (viewport coordinates) reaches it.
    await page.locator('[data-chart="fees"]').scrollIntoViewIfNeeded()
    const box = await page.locator('[data-chart="fees"] .u-over').boundingBox()
    await page.mouse.move(box!.x + box!.width - 2, box!.y + box!.height / 2)
    const legend = page.locator('[data-chart="fees"] .u-legend')
    await eventually(async () => (await legend.textContent())?.includes('6 blocks13.3 sat/vB'))
    await browser.screenshot('blocks-03-fee-chart')
  })

  await t.test('node text stays text: a hostile estimate error is shown, never run', async (t) => {
    node.tamper('estimatesmartfee', () => ({ errors: [HOSTILE], blocks: 0 }))
    await nav('Overview').click()
    await eventually(async () => (await page.getByTestId('card-fees').textContent())?.includes(HOSTILE))
    t.equal(await page.locator('[data-testid="card-fees"] img').count(), 0, 'no element made of node text')
    t.equal(await page.evaluate(() => (window as { __xss?: number }).__xss), undefined)
    node.restore()
  })

  t.same(browser.problems, [], 'no CSP violation, page error or console error')
})

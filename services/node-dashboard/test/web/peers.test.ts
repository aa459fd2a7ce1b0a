import type { AddressInfo } from 'node:net'
import { startNodeSimulator } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { build } from '../helper.ts'
import { startTamperedNode } from '../rpc/tampered-node.ts'
import { logIn, openBrowser } from './browser.ts'

const HOSTILE = '<img src=x onerror="window.__pwned=1">'

// The Peers screen in headless Chromium against the real service and a simulated node with 4 peers.
test('the Peers screen: sortable table, confirmed disconnect, ban, unban and clear', { skip: chromiumMissing() }, async (t) => {
  const app = await build(t, { env: { METRICS_SAMPLE_SECONDS: '86400' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const sim = await startNodeSimulator({ peers: 4 })
  t.teardown(() => sim.close())
  // Peer 3 announces markup as its user agent: it must show as text.
  const node = await startTamperedNode(t, sim.url)
  node.tamper('getpeerinfo', (peers) => (peers as { id: number }[]).map((p) => (p.id === 3 ? { ...p, subver: HOSTILE } : p)))
  await app.settingsCache.update({ rpc_url: node.url, rpc_username: sim.user, rpc_password: sim.password })

  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  await logIn(page, base)
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Peers', exact: true }).click()
  await page.getByRole('heading', { name: 'Peers', level: 1 }).waitFor()
  const table = page.getByTestId('peers-table')
  await table.waitFor()
  const ids = () => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-peer-id'))))

  await t.test('the table lists every peer with counts; node text stays text', async (t) => {
    t.same(await ids(), [0, 1, 2, 3])
    t.match(await page.getByTestId('peer-counts').textContent(), /4 peers: 2 inbound, 2 outbound \(not_publicly_routable 4\)/)
    const row = table.locator('tr[data-peer-id="3"]')
    t.match(await row.textContent(), HOSTILE)
    t.equal(await table.locator('img').count(), 0, 'no element made from node output')
    t.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined)
    await browser.screenshot('peers-01-table')
  })

  await t.test('headings sort with the mouse and the keyboard and say how', async (t) => {
    const sent = page.getByRole('button', { name: 'Sent', exact: true })
    await sent.click()
    const header = table.locator('th', { has: sent })
    t.equal(await header.getAttribute('aria-sort'), 'ascending')
    const bytes = () => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-peer-id'))))
    const ascending = await bytes()
    // Enter on the focused heading flips the order (the button keeps the focus across the redraw).
    await page.keyboard.press('Enter')
    t.equal(await header.getAttribute('aria-sort'), 'descending')
    t.same(await bytes(), [...ascending].reverse(), 'the reverse order (the simulated byte counts are distinct)')
    t.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('data-sort')),
      'bytes_sent',
      'the focus stays on the heading',
    )
    await page.getByRole('button', { name: 'ID', exact: true }).click()
    t.same(await ids(), [0, 1, 2, 3])
  })

  await t.test('disconnect asks first; Cancel does nothing, confirming drops the peer', async (t) => {
    await page.getByRole('button', { name: 'Disconnect peer 1 (127.0.0.3:18444)' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    t.match(await page.getByTestId('confirm-text').textContent(), /Disconnect peer 1/)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    t.same(await ids(), [0, 1, 2, 3], 'cancelled: nothing happened')
    await page.getByRole('button', { name: 'Disconnect peer 1 (127.0.0.3:18444)' }).click()
    await page.getByTestId('confirm').click()
    await eventually(async () => JSON.stringify(await ids()) === '[0,2,3]')
    t.match(await page.getByTestId('peers-notice').textContent(), /Peer 1 \(127\.0\.0\.3:18444\) was disconnected/)
    t.match((await app.audit.recent(1))[0], { name: 'peers:disconnect', ok: true, username: 'admin' })
  })

  await t.test('ban a peer address from its row, lift it, ban again and clear all', async (t) => {
    await page.getByRole('button', { name: 'Ban the address of peer 2 (127.0.0.4)' }).click()
    const address = page.getByLabel('Address or subnet', { exact: true })
    t.equal(await address.inputValue(), '127.0.0.4')
    t.equal(await address.evaluate((el) => el === document.activeElement), true, 'the form has the focus')
    await page.getByLabel('Ban for', { exact: true }).selectOption({ label: '1 week' })
    await page.getByRole('button', { name: 'Ban', exact: true }).click()
    t.match(await page.getByTestId('confirm-text').textContent(), /Ban 127\.0\.0\.4 for 1 week\?/)
    await page.getByTestId('confirm').click()
    const bans = page.getByTestId('bans-table')
    await bans.waitFor()
    t.match(await bans.textContent(), /127\.0\.0\.4\/32/)
    await eventually(async () => JSON.stringify(await ids()) === '[0,3]')
    await browser.screenshot('peers-02-banned')

    await address.fill('not an address')
    await page.getByRole('button', { name: 'Ban', exact: true }).click()
    await page.getByTestId('confirm').click()
    await eventually(async () => /address/.test((await page.getByTestId('bans-error').textContent()) ?? ''))

    await page.getByRole('button', { name: 'Unban 127.0.0.4/32' }).click()
    await page.getByTestId('confirm').click()
    await page.getByTestId('no-bans').waitFor()
    t.equal(await page.getByTestId('clear-bans').isDisabled(), true, 'nothing to clear')

    for (const target of ['198.51.100.0/24', '203.0.113.9']) {
      await address.fill(target)
      await address.press('Enter')
      await page.getByTestId('confirm').click()
      await page.locator(`tr[data-ban^="${target.split('/')[0]}"]`).waitFor()
    }
    await page.getByTestId('clear-bans').click()
    t.match(await page.getByTestId('confirm-text').textContent(), /Lift every ban/)
    await page.getByTestId('confirm').click()
    await page.getByTestId('no-bans').waitFor()
    const names = (await app.audit.recent(10)).map((r) => r.name)
    t.ok(names.includes('peers:clear-bans') && names.includes('peers:unban') && names.includes('peers:ban'))
    t.same(browser.problems, [], 'no page errors or CSP violations')
  })
})

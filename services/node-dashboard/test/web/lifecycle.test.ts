import type { AddressInfo } from 'node:net'
import { createNodeHost } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { sshdUnavailable, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { nodeSettingsFor } from '../actions/helper.ts'
import { build } from '../helper.ts'
import { logIn, openBrowser } from './browser.ts'

// The Actions screen: live phases while a start runs, a failed start's debug.log, and the confirmed -reindex start.
const skip = chromiumMissing() ?? sshdUnavailable() ?? false

test('actions screen: phases, the debug.log tail and "Start with -reindex"', { skip }, async (t) => {
  const sshd = await startSshd()
  t.teardown(() => sshd.stop())
  const host = await createNodeHost()
  t.teardown(() => host.cleanup())
  await host.writeConf(undefined, 'simfailms=4000')
  await host.corruptBlockDatabase()
  const app = await build(t, { env: { START_WAIT_MS: '20000', SSH_TIMEOUT_MS: '10000' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  await app.settingsCache.update(nodeSettingsFor(sshd, host))

  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  await logIn(page, base)
  await page.getByRole('link', { name: 'Actions' }).click()
  const state = page.getByTestId('lifecycle-state')
  await eventually(async () => (await state.getAttribute('data-state')) === 'unreachable')

  await page.getByRole('button', { name: 'Start', exact: true }).click()
  await page.getByTestId('confirm').click()
  // The POST is still pending: the phases so far come from polling the node state.
  const live = page.locator('[data-testid="live-phases"] li[data-phase="warming_up"]')
  await eventually(async () => (await live.count()) > 0, { timeoutMs: 15_000, intervalMs: 100 })
  t.match(await live.textContent(), 'Loading block index…')
  t.match(await page.getByTestId('action-status').textContent(), /Running start/, 'while the start is still running')
  await eventually(async () => (await page.locator('[data-testid="action-result"] h2').textContent()) === 'start: failed', {
    timeoutMs: 30_000,
  })
  await eventually(async () => (await state.getAttribute('data-state')) === 'stopped')
  const log = page.getByTestId('debug-log')
  t.match(await log.textContent(), 'Error: Corrupted block database detected.\nPlease restart with -reindex')
  t.match(await page.locator('[data-testid="action-result"] [data-testid="phases"]').textContent(), /failed/)
  await browser.screenshot('20-actions-start-failed-debug-log')

  // The -reindex start asks first; Cancel runs nothing.
  const reindex = page.getByRole('button', { name: 'Start with -reindex' })
  await reindex.click()
  t.match(await page.getByRole('dialog').textContent(), 'rebuilds its block index and chainstate')
  await page.getByRole('button', { name: 'Cancel' }).click()
  t.notOk(host.isRunning(), 'nothing started without the confirmation')
  await reindex.click()
  await page.getByTestId('confirm').click()
  await eventually(
    async () => (await page.locator('[data-testid="action-result"] h2').textContent()) === 'start-reindex: succeeded',
    { timeoutMs: 30_000 },
  )
  t.match(await page.getByTestId('phases').textContent(), /running/)
  await eventually(async () => (await state.getAttribute('data-state')) === 'running')
  await browser.screenshot('21-actions-start-reindex')
  const { rows } = await app.db.query<{ name: string; ok: boolean }>(
    "SELECT name, ok FROM audit_log WHERE kind = 'action' ORDER BY id",
  )
  t.same(rows, [
    { name: 'start', ok: false },
    { name: 'start-reindex', ok: true },
  ])
  t.same(browser.problems, [])
})

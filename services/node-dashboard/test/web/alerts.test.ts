import type { AddressInfo } from 'node:net'
import { eventually, startWebhookReceiver } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { build, TEST_PASSWORD } from '../helper.ts'
import { openBrowser } from './browser.ts'

// The Alerts screen in headless Chromium against the real service and a real webhook receiver.
test('the alerts screen: rules, masked targets, a test notification and its delivery', { skip: chromiumMissing() }, async (t) => {
  const app = await build(t, { env: { METRICS_SAMPLE_SECONDS: '3600' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const receiver = await startWebhookReceiver()
  t.teardown(() => receiver.close())
  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  const field = (label: string) => page.getByLabel(label, { exact: true })

  await page.goto(`${base}/`)
  await field('Username').fill('admin')
  await field('Password').fill(TEST_PASSWORD)
  await field('Password').press('Enter')
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts', exact: true }).click()
  await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor()
  t.equal(await page.getByTestId('rules').textContent(), 'No rules yet.')

  await t.test('a rule out of range shows the API’s message; a valid one is added with the keyboard', async (t) => {
    await field('Rule').selectOption('peers_below')
    await field('N').fill('0')
    await page.getByTestId('add-rule').click()
    await eventually(async () => /at least 1/.test((await page.getByTestId('rule-error').textContent()) ?? ''))
    await field('N').fill('3')
    await field('N').press('Enter')
    await eventually(async () => (await page.getByTestId('rules').textContent())?.includes('Fewer than 3 peers'))
    t.equal(await page.getByTestId('rule-error').textContent(), '')
    t.equal(await page.getByTestId('rule-state').first().textContent(), 'not firing')
    await field('Rule').selectOption('initial_download')
    t.equal(await field('N').isDisabled(), true, 'the rule without N disables the field')
    await page.getByTestId('add-rule').click()
    await eventually(async () => (await page.getByTestId('rule-state').count()) === 2)
    // The buttons name their row for screen readers.
    await page.getByRole('button', { name: 'Disable rule: Fewer than 3 peers' }).click()
    await eventually(async () => (await page.getByTestId('rule-state').first().textContent()) === 'disabled')
    await browser.screenshot('alerts-01-rules')
  })

  await t.test('a target: the URL is typed like a password and shown masked; names stay text', async (t) => {
    const secret = `${receiver.origin}/hook/SECRET-${Date.now()}`
    await field('Name').fill('<img src=x onerror="window.__xss=1">')
    await field('Format').selectOption('slack')
    t.equal(await field('Webhook URL').getAttribute('type'), 'password')
    await field('Webhook URL').fill(secret)
    await page.getByTestId('add-target').click()
    await eventually(async () => (await page.getByTestId('targets').count()) === 1)
    t.equal(await page.getByTestId('target-url').textContent(), `${receiver.origin}/********`)
    t.equal(await field('Webhook URL').inputValue(), '', 'the form forgets the URL')
    t.notOk((await page.content()).includes('SECRET-'), 'the URL is nowhere in the page')
    t.match(await page.getByTestId('targets').textContent(), /<img src=x/)
    t.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined)

    await page.getByTestId('send-test').click()
    await eventually(async () => /delivered \(HTTP 200\)/.test((await page.getByTestId('alerts-status').textContent()) ?? ''))
    t.equal(receiver.requests.length, 1)
    t.match(JSON.parse(receiver.requests[0].body).text, /^Test notification: /)
    await eventually(async () => (await page.getByTestId('delivery-state').first().textContent()) === 'delivered')
    t.match(await page.getByTestId('deliveries').textContent(), /200/)
    await browser.screenshot('alerts-02-targets')
  })

  await t.test('deleting asks first; Cancel keeps, Delete removes', async (t) => {
    const deleteButton = page.getByRole('button', { name: /^Delete target / })
    await deleteButton.click()
    await page.getByRole('dialog').waitFor()
    await page.keyboard.press('Enter') // Cancel has the focus
    t.equal(await page.getByTestId('targets').count(), 1)
    await deleteButton.click()
    await page.getByTestId('confirm-delete').click()
    await eventually(async () => (await page.getByTestId('targets').textContent()) === 'No targets yet.')
  })

  t.same(browser.problems, [], 'no page errors or CSP violations')
})

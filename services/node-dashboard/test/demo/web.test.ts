import type { AddressInfo } from 'node:net'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { build, login } from '../helper.ts'
import { logIn, openBrowser } from '../web/browser.ts'

// A newcomer's first look: no settings saved, the demo node on, the app in headless Chromium.
test('the app shows the demo node and says so until real settings are saved', { skip: chromiumMissing() }, async (t) => {
  const app = await build(t, { env: { DEMO_NODE: 'on' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser

  await logIn(page, base)
  await page.getByRole('heading', { name: 'Overview' }).waitFor()

  const banner = page.getByTestId('demo-banner')
  await banner.waitFor({ state: 'visible' })
  t.match(await banner.textContent(), /^Demo node\. This is a simulated Bitcoin node running inside the dashboard/)
  t.equal(await banner.getAttribute('role'), 'status', 'screen readers hear it')
  const height = page.getByTestId('height')
  await height.waitFor()
  t.match(await height.textContent(), /^\d/, 'the overview shows the demo node')
  await browser.screenshot('demo-01-overview')

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'RPC explorer', exact: true }).click()
  await banner.waitFor({ state: 'visible' })
  t.pass('the banner stays on other screens')
  await page.getByRole('link', { name: 'Settings', exact: true }).last().click()
  await page.getByTestId('settings-save').waitFor()

  const cookie = await login(app)
  const put = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie },
    payload: { rpc_url: 'http://127.0.0.1:9/', rpc_username: 'u', rpc_password: 'p' },
  })
  t.equal(put.statusCode, 200, put.body)
  await page.reload()
  await page.getByTestId('settings-save').waitFor()
  await eventually(async () => (await page.getByTestId('demo-banner').isHidden()) === true)
  t.pass('no banner once real settings are saved')
  t.same(browser.problems, [], 'no page errors')
})

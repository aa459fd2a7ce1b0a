import type { AddressInfo } from 'node:net'
import { startNodeSimulator } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { test } from 'tap'
import { build, login } from '../helper.ts'
import { logIn, openBrowser } from './browser.ts'

// The overview shows a starting (warm-up) and an unreachable node as states, with the API's detail.
test('overview states: starting, running, down', {
  skip: chromiumMissing(),
}, async (t) => {
  const sim = await startNodeSimulator({ warmup: 'Loading block index…' })
  t.teardown(() => sim.close())
  const app = await build(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const saved = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie: await login(app) },
    payload: { rpc_url: sim.url, rpc_username: sim.user, rpc_password: sim.password },
  })
  t.equal(saved.statusCode, 200)

  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  await logIn(page, base)

  const state = page.getByTestId('node-state')
  await state.waitFor()
  t.equal(await state.getAttribute('data-state'), 'starting')
  t.match(await state.textContent(), /Node starting.*Loading block index…/)
  await browser.screenshot('12-overview-node-starting')

  sim.setWarmup(null)
  const refresh = page.getByRole('button', { name: 'Refresh now' })
  await eventually(async () => {
    await refresh.click()
    return (await page.getByTestId('height').textContent({ timeout: 1000 })) === String(sim.chain.height)
  })

  await sim.close()
  await eventually(async () => {
    await refresh.click()
    return (await state.getAttribute('data-state', { timeout: 1000 })) === 'down'
  })
  t.match(await state.textContent(), /Node unreachable.*unreachable/)
  t.same(browser.problems, [])
})

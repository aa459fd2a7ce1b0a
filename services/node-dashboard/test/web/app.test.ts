import type { AddressInfo } from 'node:net'
import { createNodeHost, NODE_BINARY, rpc } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { sshdUnavailable, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { build, TEST_PASSWORD } from '../helper.ts'
import { openBrowser } from './browser.ts'

// The whole dashboard in headless Chromium against the real service, a daemonised node simulator and a real sshd.
test('the dashboard SPA end to end', { skip: chromiumMissing() }, async (t) => {
  const app = await build(t, { env: { METRICS_SAMPLE_SECONDS: '1', LOGIN_MAX_FAILURES: '4' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const node = await createNodeHost({ lockHoldMs: 300 })
  t.teardown(() => node.cleanup())
  await node.writeConf()
  const started = await node.start()
  t.equal(started.code, 0, `the node starts: ${started.stderr}`)
  await node.waitReady()
  const nodeHeight = (await rpc(node.url, 'getblockcount')).json.result as number
  const noSshd = sshdUnavailable()
  const sshd = noSshd ? null : await startSshd()
  if (sshd) t.teardown(() => sshd.stop())

  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true })
  const field = (label: string) => page.getByLabel(label, { exact: true })
  const calls: string[] = []
  page.on('request', (r) => {
    if (r.url().includes('/api/')) calls.push(`${r.method()} ${new URL(r.url()).pathname}`)
  })

  await t.test('login fails with a plain message, then succeeds with the keyboard', async (t) => {
    await page.goto(`${base}/`)
    await field('Username').fill('admin')
    await field('Password').fill('wrong password')
    await page.getByRole('button', { name: 'Log in' }).click()
    await eventually(async () => (await page.getByTestId('login-error').textContent()) === 'Wrong username or password.')
    await browser.screenshot('01-login-error')
    await field('Password').fill(TEST_PASSWORD)
    await field('Password').press('Enter')
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    t.equal(await page.getByTestId('username').textContent(), 'admin')
    // No settings yet: the overview says so instead of breaking.
    const state = page.getByTestId('node-state')
    await state.waitFor()
    t.equal(await state.getAttribute('data-state'), 'unconfigured')
    t.match(await state.textContent(), /rpc_url/)
  })

  await t.test('settings: a 422 shows beside its field, then the settings save', async (t) => {
    await nav('Settings').click()
    await field('RPC URL').fill(node.url)
    await field('RPC username').fill('u')
    await field('Wallet').fill('w1')
    await page.getByRole('button', { name: 'Set', exact: true }).first().click()
    await field('RPC password').fill('p')
    await field('SSH port').fill('70000')
    await page.getByTestId('settings-save').click()
    const portError = page.getByTestId('error-ssh_port')
    await eventually(async () => (await portError.textContent())?.includes('ssh_port'))
    t.equal(await field('SSH port').getAttribute('aria-invalid'), 'true')
    t.equal(await page.getByTestId('error-rpc_url').textContent(), '', 'only the named field shows the error')
    await browser.screenshot('02-settings-422')

    await field('SSH port').fill(String(sshd?.port ?? 22))
    await field('SSH host').fill('127.0.0.1')
    await field('SSH username').fill(sshd?.username ?? 'nobody')
    await field('SSH private key path').fill(sshd?.clientKeyPath ?? '')
    await field('Node binary').fill(NODE_BINARY)
    await field('Node config file').fill(node.confPath)
    const put = page.waitForRequest((r) => r.method() === 'PUT' && r.url().endsWith('/api/settings'))
    await page.getByTestId('settings-save').click()
    // The CSRF rule compares the Origin of state-changing requests with the dashboard's own.
    t.equal((await (await put).allHeaders()).origin, base)
    await eventually(async () => (await page.getByTestId('settings-status').textContent()) === 'Settings saved.')
    t.equal(await portError.textContent(), '')
    t.equal(await page.getByTestId('secret-rpc_password').textContent(), 'set')
    t.equal(await page.getByTestId('secret-ssh_password').textContent(), 'not set')
    t.equal(await field('RPC password').isHidden(), true, 'a stored secret is never put back into the form')

    await page.getByTestId('test-rpc').click()
    await eventually(async () => (await page.getByTestId('test-result').textContent())?.includes(`regtest, ${nodeHeight} blocks`))
    if (sshd) {
      await page.getByTestId('test-ssh').click()
      await eventually(async () =>
        (await page.getByTestId('test-ssh-result').textContent())?.includes('Bitcoin Core daemon version v30.0.0'),
      )
    }
    await browser.screenshot('03-settings-saved')
  })

  await t.test("the overview shows the simulator's height and the refresh interval", async (t) => {
    await nav('Overview').click()
    const height = page.getByTestId('height')
    await height.waitFor()
    t.equal(await height.textContent(), nodeHeight.toLocaleString('en-US'))
    t.match(await page.getByTestId('card-chain').textContent(), /regtest/)
    t.match(await page.getByTestId('card-network').textContent(), /Satoshi/)
    t.match(await page.getByTestId('card-wallet').textContent(), /w1/)
    t.match(await page.getByTestId('refresh-status').textContent(), /Auto-refresh every 10 s/)
    // A hidden tab pauses the refresh; showing it again refreshes at once.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { value: true, configurable: true })
      document.dispatchEvent(new Event('visibilitychange'))
    })
    t.match(await page.getByTestId('refresh-status').textContent(), /paused while this tab is hidden/)
    const before = calls.filter((c) => c === 'GET /api/dashboard/summary').length
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { value: false, configurable: true })
      document.dispatchEvent(new Event('visibilitychange'))
    })
    await eventually(async () => calls.filter((c) => c === 'GET /api/dashboard/summary').length > before)
    t.match(await page.getByTestId('refresh-status').textContent(), /Auto-refresh every 10 s/)
    await browser.screenshot('04-overview')
  })

  await t.test('the 5m chart renders points and hover shows values', async (t) => {
    await nav('Charts').click()
    await page.getByRole('button', { name: '5m' }).click()
    // The sampler records one point a second once settings are complete; reload the window until some exist.
    const points = await eventually(async () => {
      await page.getByRole('button', { name: '5m' }).click()
      const chart = page.locator('[data-chart="height"]')
      await chart.waitFor({ timeout: 2000 })
      return Number(await chart.getAttribute('data-points'))
    })
    t.ok(points > 0, `${points} points`)
    // A refresh may redraw the chart between steps (its plot area is briefly gone): measure, hover and read again.
    const over = page.locator('[data-chart="height"] .u-over')
    const legend = page.locator('[data-chart="height"] .u-legend')
    let width = 0
    const shown = await eventually(async () => {
      const box = await over.boundingBox()
      if (!box) return false
      width = box.width
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2)
      return (await legend.textContent())?.includes(nodeHeight.toLocaleString('en-US'))
    })
    t.ok(width > 100, 'the plot area has a size')
    t.ok(shown, 'hover shows the latest height in the legend')
    await browser.screenshot('05-charts')
  })

  await t.test('RPC explorer: getblockcount, refused params, text-only output', async (t) => {
    await nav('RPC explorer').click()
    await field('Filter methods').fill('blockcount')
    await page.locator('[data-method="getblockcount"]').click()
    await eventually(async () => (await page.getByTestId('rpc-help').textContent())?.includes('Returns the height'))
    await field('Params (JSON array)').fill('[]')
    await page.getByTestId('rpc-send').click()
    await eventually(async () => (await page.getByTestId('rpc-value').textContent()) === String(nodeHeight))
    t.match(await page.getByTestId('rpc-history').textContent(), /getblockcount ok/)
    t.notMatch(await page.getByTestId('rpc-curl').inputValue(), /:p\b|"p"|rpcpassword/, 'curl has no password')

    // Objects come back as collapsible trees; the wallet override reaches the wallet endpoint.
    await field('Method').fill('getwalletinfo')
    await field('Params (JSON array)').fill('[]')
    await field('Wallet override (optional)').fill('w1')
    await page.getByTestId('rpc-send').click()
    // A wallet read asks first; Cancel has the focus.
    await page.getByTestId('rpc-confirm-dialog').waitFor()
    t.match(await page.getByTestId('rpc-confirm-text').textContent(), /getwalletinfo reads wallet data/)
    await page.getByTestId('rpc-confirm').click()
    const tree = page.locator('[data-testid="rpc-value"] > details.json')
    await tree.waitFor()
    t.match(await tree.textContent(), /"walletname": ?"w1"/)
    await tree.locator('> summary').click()
    t.equal(await tree.getAttribute('open'), null, 'the tree folds')
    t.match(await page.getByTestId('rpc-curl').inputValue(), /\/wallet\/w1'/)
    await field('Wallet override (optional)').fill('')

    const before = calls.filter((c) => c === 'POST /api/rpc/call').length
    await field('Params (JSON array)').fill('[1,')
    await page.getByTestId('rpc-send').click()
    t.match(await page.getByTestId('params-error').textContent(), /not valid JSON/)
    await field('Params (JSON array)').fill('{"height": 1}')
    await page.getByTestId('rpc-send').click()
    t.match(await page.getByTestId('params-error').textContent(), /must be a JSON array/)
    t.equal(calls.filter((c) => c === 'POST /api/rpc/call').length, before, 'nothing was sent')

    // The node echoes the unknown command name: it must show as text, never as markup.
    await field('Method').fill('help')
    await field('Params (JSON array)').fill('["<img src=x id=injected>"]')
    await page.getByTestId('rpc-send').click()
    await eventually(async () => (await page.getByTestId('rpc-result').textContent())?.includes('<img src=x id=injected>'))
    t.equal(await page.locator('#injected').count(), 0)
    await browser.screenshot('06-rpc-explorer')
  })

  await t.test('RPC explorer: argument form, risk confirmations, bitcoin-cli, a history that survives a reload', async (t) => {
    // Typing a listed method loads its help and its argument form.
    await field('Method').fill('getblockhash')
    const height = page.getByLabel('1. height (numeric, required)')
    await height.waitFor()
    t.match(await page.getByTestId('rpc-help').textContent(), /Returns hash of block/)
    t.equal(await page.getByTestId('rpc-risk').getAttribute('data-risk'), 'read_only')
    await height.fill('x')
    t.match(await page.getByTestId('params-error').textContent(), /height must be a number/)
    await height.fill('0')
    t.equal(await field('Params (JSON array)').inputValue(), '[0]', 'the form builds the params')
    await page.getByTestId('rpc-send').click()
    await eventually(async () => /^"?[0-9a-f]{64}"?$/.test((await page.getByTestId('rpc-value').textContent()) ?? ''))
    t.equal(await page.getByTestId('rpc-confirm-dialog').isVisible(), false, 'a read-only call asks nothing')
    await page.getByRole('button', { name: 'Copy as bitcoin-cli' }).click()
    const cli = await page.getByTestId('rpc-cli').inputValue()
    t.match(
      cli,
      /^bitcoin-cli -rpcconnect='127\.0\.0\.1' -rpcport=\d+ -rpcuser="\$RPC_USER" -stdinrpcpass -rpcwallet='w1' -named getblockhash 'height=0'$/,
      'the settings wallet, as the call uses it',
    )

    // The top class asks for the typed method name; Cancel sends nothing.
    const sent = () => calls.filter((c) => c === 'POST /api/rpc/call').length
    const before = sent()
    await field('Method').fill('invalidateblock')
    await field('Params (JSON array)').fill('["00"]')
    await page.getByTestId('rpc-send').click()
    await page.getByTestId('rpc-confirm-dialog').waitFor()
    t.match(await page.getByTestId('rpc-confirm-text').textContent(), /stops the node or can damage its chain state/)
    const confirm = page.getByTestId('rpc-confirm')
    t.equal(await confirm.isDisabled(), true)
    await page.getByLabel('Type the method name to confirm').fill('invalidate')
    t.equal(await confirm.isDisabled(), true, 'a wrong name keeps it disabled')
    await page.keyboard.press('Escape')
    await eventually(async () => (await page.getByTestId('rpc-result').textContent())?.includes('was not called'))
    t.equal(sent(), before, 'nothing was sent')
    await page.getByTestId('rpc-send').click()
    await page.getByLabel('Type the method name to confirm').fill('invalidateblock')
    await confirm.click()
    await eventually(async () => sent() === before + 1)

    // A passphrase-taking call is remembered without its params, across a reload.
    await field('Method').fill('walletpassphrase')
    await field('Params (JSON array)').fill('["hunter2 horse staple", 1]')
    await page.getByTestId('rpc-send').click()
    await page.getByTestId('rpc-confirm').click()
    await eventually(async () => (await page.getByTestId('rpc-history').textContent())?.includes('walletpassphrase'))
    const stored = await page.evaluate(() => localStorage.getItem('node-dashboard.rpc-history') ?? '')
    t.notMatch(stored, /hunter2/, 'the passphrase is not in browser storage')
    t.match(stored, /getblockhash/)
    await page.reload()
    await nav('RPC explorer').click()
    const history = page.getByTestId('rpc-history')
    await eventually(async () => (await history.textContent())?.includes('getblockhash ok'))
    t.match(await history.textContent(), /walletpassphrase.*params not kept/)
  })

  await t.test('stop then start through the real SSH server brings the node back', { skip: noSshd ?? false }, async (t) => {
    await nav('Actions').click()
    // Keyboard: Enter opens the confirmation with Cancel focused; Escape closes it and nothing runs.
    await page.getByRole('button', { name: 'Restart', exact: true }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').waitFor()
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel')
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
    t.notOk(calls.includes('POST /api/actions/restart'), 'a dismissed confirmation runs nothing')

    await page.getByRole('button', { name: 'Stop', exact: true }).click()
    await page.getByRole('dialog').waitFor()
    await page.getByTestId('confirm').click()
    const result = page.getByTestId('action-result')
    await eventually(async () => (await result.getAttribute('data-ok')) === 'true', { timeoutMs: 30_000 })
    await node.waitExited()
    await nav('Overview').click()
    await eventually(async () => (await page.getByTestId('node-state').getAttribute('data-state')) === 'down', {
      timeoutMs: 10_000,
    })
    await browser.screenshot('07-overview-node-down')

    await nav('Actions').click()
    await page.getByRole('button', { name: 'Start', exact: true }).click()
    await page.getByTestId('confirm').click()
    t.match(await page.getByTestId('action-status').textContent(), /Running start/)
    await eventually(async () => (await page.locator('[data-testid="action-result"] h2').textContent()) === 'start: succeeded', {
      timeoutMs: 60_000,
    })
    t.equal(await page.getByTestId('exit-code').textContent(), '0')
    await browser.screenshot('08-actions-start')
    await nav('Overview').click()
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh now' }).click()
        return (await page.getByTestId('height').textContent({ timeout: 1000 })) === nodeHeight.toLocaleString('en-US')
      },
      { timeoutMs: 30_000, intervalMs: 1000 },
    )
    // The first connection recorded the host key (trust on first use); the settings show it.
    await nav('Settings').click()
    await eventually(async () => (await field('SSH host key fingerprint').inputValue()) === sshd!.hostFingerprint)
  })

  await t.test('usable at 360 px and in dark mode', async (t) => {
    await nav('Overview').click()
    await page.setViewportSize({ width: 360, height: 800 })
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.getByTestId('card-chain').waitFor()
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    t.equal(overflow, 0, 'no horizontal scrolling')
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    t.equal(background, 'rgb(13, 17, 23)')
    await browser.screenshot('09-overview-360-dark')
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.emulateMedia({ colorScheme: 'light' })
  })

  await t.test('an expired session returns to the login screen with a message', async (t) => {
    await browser.context.clearCookies()
    await page.getByRole('button', { name: 'Refresh now' }).click()
    await eventually(async () => (await page.getByTestId('login-notice').textContent())?.includes('session has expired'))
    t.equal(await page.getByTestId('username').count(), 0, 'the app is gone, not half-rendered')
    t.ok(await field('Username').isVisible())
    await browser.screenshot('10-session-expired')
  })

  await t.test('logout returns to login; repeated failures show the retry time', async (t) => {
    await field('Username').fill('admin')
    await field('Password').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('logout').click()
    await eventually(async () => (await page.getByTestId('login-notice').textContent()) === 'You have been logged out.')
    const me = await page.evaluate(() => fetch('/api/auth/me').then((r) => r.json()))
    t.same(me, { authenticated: false, username: null })
    t.equal(await page.evaluate(() => localStorage.getItem('node-dashboard.rpc-history')), null, 'logout clears the RPC history')
    const lockedOut = async () =>
      /Too many failed attempts\. Try again in (\d+ min )?\d+ s \(at \d\d:\d\d:\d\d\)/.test(
        (await page.getByTestId('login-error').textContent()) ?? '',
      )
    await eventually(
      async () => {
        if (await lockedOut()) return true
        await field('Username').fill('admin')
        await field('Password').fill('still wrong')
        const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/login'))
        await page.getByRole('button', { name: 'Log in' }).click()
        return (await answered).status() === 429 && lockedOut()
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    )
    t.equal(await page.getByRole('button', { name: 'Log in' }).isDisabled(), true)
    await browser.screenshot('11-login-too-many')
  })

  t.same(browser.problems, [], 'no CSP violation, page error or console error')
})

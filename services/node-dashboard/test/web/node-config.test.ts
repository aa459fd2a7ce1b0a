import { readdir, readFile, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { createNodeHost } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { sshdUnavailable, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { build, login, TEST_PASSWORD } from '../helper.ts'
import { openBrowser } from './browser.ts'

const missing = chromiumMissing() || sshdUnavailable()

// The node config screen in headless Chromium, editing a real file over a real sshd.
test('the node config screen edits bitcoin.conf over SSH', { skip: missing ?? false }, async (t) => {
  const app = await build(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const host = await createNodeHost()
  t.teardown(() => host.cleanup())
  await host.writeConf()
  await writeFile(host.confPath, `dbcache=450\n${await readFile(host.confPath, 'utf8')}`)
  const sshd = await startSshd()
  t.teardown(() => sshd.stop())
  await login(app)
  await app.settingsCache.update({
    ssh_host: sshd.host,
    ssh_port: sshd.port,
    ssh_username: sshd.username,
    ssh_key_path: sshd.clientKeyPath,
    config_path: host.confPath,
  })

  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  const field = (label: string) => page.getByLabel(label, { exact: true })
  await page.goto(`${base}/#/node-config`)
  await field('Username').fill('admin')
  await field('Password').fill(TEST_PASSWORD)
  await field('Password').press('Enter')
  await page.getByRole('heading', { name: 'Node config' }).waitFor()

  const text = page.getByTestId('config-text')
  await eventually(async () => (await text.inputValue()).includes('rpcpassword=********'))
  t.notOk((await text.inputValue()).includes('rpcpassword=p\n'), 'the RPC password is masked')
  t.equal(await field('Database cache (MiB)').inputValue(), '450')
  t.match(await page.getByTestId('config-info').textContent(), host.confPath)

  // A value bitcoind refuses stays in the form with the line named; the file is untouched.
  const before = await readFile(host.confPath, 'utf8')
  await field('Prune (MiB)').fill('100')
  await field('Prune (MiB)').press('Tab')
  t.match(await text.inputValue(), /\nprune=100\n/)
  await page.getByTestId('config-save').click()
  await page.getByTestId('config-confirm').click()
  await eventually(async () =>
    /prune below the minimum of 550 MiB/.test((await page.getByTestId('config-error').textContent()) ?? ''),
  )
  t.equal(await readFile(host.confPath, 'utf8'), before)

  await field('Prune (MiB)').fill('')
  await field('Prune (MiB)').press('Tab')
  await field('Database cache (MiB)').fill('1000')
  await field('Database cache (MiB)').press('Tab')
  await page.getByTestId('config-save').click()
  await page.getByTestId('config-confirm').click()
  const diff = page.getByTestId('config-diff')
  await diff.waitFor()
  t.match(await diff.textContent(), /-dbcache=450\n\+dbcache=1000/)
  t.match(await page.getByTestId('config-restart').textContent(), 'A restart is needed')
  const after = await readFile(host.confPath, 'utf8')
  t.equal(after, before.replace('dbcache=450', 'dbcache=1000'), 'only that line changed; the password was kept')
  t.equal((await readdir(path.dirname(host.confPath))).filter((f) => f.includes('.bak-')).length, 1, 'one backup')
  await browser.screenshot('node-config-saved')

  // Someone edits the file on the host meanwhile: the next save is refused and offers a reload.
  await writeFile(host.confPath, `${after}# edited on the host\n`)
  await field('Max connections').fill('40')
  await field('Max connections').press('Tab')
  await page.getByTestId('config-save').click()
  await page.getByTestId('config-confirm').click()
  await eventually(async () => /changed on the node host/.test((await page.getByTestId('config-error').textContent()) ?? ''))
  await page.getByRole('button', { name: 'Reload' }).click()
  await eventually(async () => (await text.inputValue()).includes('# edited on the host'))
})

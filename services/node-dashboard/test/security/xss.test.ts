import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { startNodeSimulator } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { chromiumMissing } from '@app/testing/browser'
import { startPasswordSshServer } from '@app/testing/ssh'
import { test } from 'tap'
import { build, login, TEST_PASSWORD } from '../helper.ts'
import { openBrowser } from '../web/browser.ts'

const IMG = '<img src=x onerror="window.__xss=1">'
const SCRIPT = '<script>window.__xss=1</script>'
const SVG = '<svg onload="window.__xss=1"></svg>'
const BREAKOUT = '"><img src=x onerror="window.__xss=1">'
const NAME = '<img/src=x/onerror=window.__xss=1>'
const KEY = '<img src=x onerror=window.__xss=1>' // no double quotes: the JSON view shows keys JSON-quoted // one word: the help parser takes it as a method name

type Reply = { result?: unknown; error?: { message?: string } | null }
type Rewrite = (method: string, params: unknown[], reply: Reply) => void

/** The simulator has no hook for its results: a tiny proxy rewrites them as a hostile node would send them. */
async function rewritingProxy(target: string, rewrite: Rewrite): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const upstream = await fetch(new URL(req.url ?? '/', target), {
      method: req.method,
      headers: {
        'content-type': 'application/json',
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      },
      body: req.method === 'POST' ? body : undefined,
    })
    let text = await upstream.text()
    try {
      const request = JSON.parse(body)
      const reply = JSON.parse(text)
      const calls = [request].flat() as { method: string; params?: unknown[] }[]
      const replies = [reply].flat() as Reply[]
      for (const [i, r] of replies.entries()) rewrite(calls[i].method, calls[i].params ?? [], r)
      text = JSON.stringify(reply)
    } catch {}
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
    res.end(text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

const hostile: Rewrite = (method, params, reply) => {
  if (reply.error) reply.error.message = `${BREAKOUT} ${SCRIPT}`
  const result = reply.result as Record<string, unknown> | string | null
  if (method === 'getblockchaininfo' && result && typeof result === 'object') result.warnings = [IMG, SCRIPT]
  if (method === 'getnetworkinfo' && result && typeof result === 'object') {
    result.subversion = `/Satoshi:30.0.0/${IMG}/`
    result.warnings = SVG
  }
  if (method === 'getwalletinfo' && result && typeof result === 'object') result.walletname = BREAKOUT
  if (method === 'getmempoolinfo' && result && typeof result === 'object') result[KEY] = SCRIPT
  if (method === 'help' && params.length === 0 && typeof result === 'string') {
    reply.result = `== ${IMG} ==\n${NAME} ${SCRIPT}\n\n${result}`
  }
  if (method === 'help' && params[0] === 'getblockcount') reply.result = `getblockcount ${SCRIPT}\n\n${IMG}\n${BREAKOUT}\n`
}

test('hostile node output is shown as text in the SPA', {
  skip: chromiumMissing(),
}, async (t) => {
  const app = await build(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const node = await startNodeSimulator()
  t.teardown(() => node.close())
  const proxy = await rewritingProxy(node.url, hostile)
  t.teardown(() => proxy.close())
  const ssh = await startPasswordSshServer()
  t.teardown(() => ssh.close())
  // Stored settings with markup too: /bin/echo prints the config path back as the action's stdout.
  const saved = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie: await login(app) },
    payload: {
      rpc_url: proxy.url,
      rpc_username: 'u',
      rpc_password: 'p',
      rpc_wallet: 'w1',
      ssh_host: '127.0.0.1',
      ssh_port: ssh.port,
      ssh_username: ssh.username,
      ssh_password: ssh.password,
      node_binary: '/bin/echo',
      config_path: IMG,
    },
  })
  t.equal(saved.statusCode, 200, saved.body)

  const browser = await openBrowser()
  t.teardown(() => browser.close())
  const { page } = browser
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true })
  const field = (label: string) => page.getByLabel(label, { exact: true })
  const text = async (testid: string) => (await page.getByTestId(testid).textContent()) ?? ''
  // Nothing ran and no element came from the payloads (CSP would block the handler, so look for the element too).
  const inert = async (t: { equal: (a: unknown, b: unknown, m: string) => void }, where: string) => {
    t.equal(await page.evaluate(() => (window as { __xss?: unknown }).__xss), undefined, `${where}: window.__xss never set`)
    const injected = await page.evaluate(
      () => document.querySelectorAll('img[src="x"], img[src$="/x"], svg, [onerror], [onload], script:not([src])').length,
    )
    t.equal(injected, 0, `${where}: no injected element`)
  }

  await page.goto(`${base}/`)
  await field('Username').fill('admin')
  await field('Password').fill(TEST_PASSWORD)
  await field('Password').press('Enter')
  await page.getByRole('heading', { name: 'Overview' }).waitFor()

  await t.test('overview: warnings, user agent and wallet name', async (t) => {
    await eventually(async () => (await text('card-chain')).includes(IMG))
    t.match(await text('card-chain'), SCRIPT, 'both warnings shown literally')
    t.match(await text('card-network'), `/Satoshi:30.0.0/${IMG}/`, 'the user agent literally')
    t.match(await text('card-wallet'), BREAKOUT, 'the wallet name literally')
    await inert(t, 'overview')
    await browser.screenshot('security-xss-overview')
  })

  await t.test('RPC explorer: catalog, help text, object keys and an RPC error message', async (t) => {
    await nav('RPC explorer').click()
    await eventually(async () => (await text('rpc-catalog')).includes(NAME))
    t.match(await text('rpc-catalog'), IMG, 'the category name literally')
    await field('Filter methods').fill('blockcount')
    await page.locator('[data-method="getblockcount"]').click()
    await eventually(async () => (await text('rpc-help')).includes(SCRIPT))
    t.match(await text('rpc-help'), IMG)
    t.match(await text('rpc-help'), BREAKOUT)
    await inert(t, 'help')

    await field('Method').fill('getmempoolinfo')
    await field('Params (JSON array)').fill('[]')
    await page.getByTestId('rpc-send').click()
    await eventually(async () => (await text('rpc-value')).includes(KEY))
    t.match(await text('rpc-value'), SCRIPT, 'a hostile key and value literally')
    await inert(t, 'call result')

    await field('Method').fill('getblockhash')
    await field('Params (JSON array)').fill('[999999]')
    await page.getByTestId('rpc-send').click()
    await eventually(async () => (await text('rpc-result')).includes(BREAKOUT))
    t.match(await text('rpc-result'), SCRIPT, 'the node error message literally')
    await inert(t, 'RPC error')
    await browser.screenshot('security-xss-rpc')
  })

  await t.test('settings: stored markup stays a field value', async (t) => {
    await nav('Settings').click()
    await eventually(async () => (await field('Node config file').inputValue()) === IMG)
    t.equal(await field('Node binary').inputValue(), '/bin/echo')
    await inert(t, 'settings')
  })

  await t.test('actions: the remote output is shown as text', async (t) => {
    await nav('Actions').click()
    await page.getByRole('button', { name: 'Start', exact: true }).click()
    await page.getByTestId('confirm').click()
    await eventually(async () => (await page.getByTestId('action-result').getAttribute('data-ok')) === 'true', {
      timeoutMs: 30_000,
    })
    t.equal(await text('stdout'), `-conf=${IMG} -daemon\n`)
    t.match(await text('action-result'), `-conf='${IMG}'`, 'the command literally')
    await inert(t, 'actions')
    await browser.screenshot('security-xss-actions')
  })

  t.same(browser.problems, [], 'no CSP violation, Trusted Types error or page error')
})

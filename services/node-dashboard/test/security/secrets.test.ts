import { Writable } from 'node:stream'
import { loadConfig } from '@app/common'
import { startNodeSimulator } from '@app/node-simulator'
import { createTestDatabase, freePort } from '@app/testing'
import { sshdUnavailable, startPasswordSshServer, startSshd } from '@app/testing/ssh'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { test } from 'tap'
import { buildApp } from '../../src/app.ts'
import { configSchema } from '../../src/config.ts'

/** A short, printable view of an answer for assertion messages (images stay out of the TAP output). */
function preview(res: { headers: Record<string, unknown>; body: string }): string {
  const type = String(res.headers['content-type'] ?? '')
  return /json|text/.test(type) ? res.body.slice(0, 120) : `<${type || 'no type'}, ${res.body.length} chars>`
}

// Distinctive values: any occurrence in a response or a log line is a leak.
const tag = `${process.pid}${Date.now().toString(36)}`
const DASHBOARD_PASSWORD = `dash-pw-${tag}-Kq7`
const TYPO_PASSWORD = `dash-typo-${tag}-Zr4` // a mistyped real password is a secret too
const SESSION_SECRET = `session-secret-${tag}-0123456789abcdefghij`
const RPC_PASSWORD = `rpc-pw-${tag}-Hx2`
const WRONG_RPC_PASSWORD = `rpc-wrong-${tag}-Vb8`
const SSH_PASSWORD = `ssh-pw-${tag}-Mn5`
const PASSPHRASE = `wallet-passphrase-${tag}-Qw1` // an RPC parameter: may reach the node, never a log
const basic = (password: string) => Buffer.from(`u:${password}`).toString('base64')

test('no secret in any response, log line or database row', async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  // The helper's build() with a readable log stream at trace level (the helper takes no stream).
  const database = await createTestDatabase()
  const config = loadConfig(configSchema, {
    LOG_LEVEL: 'trace',
    DASHBOARD_PASSWORD,
    SESSION_SECRET,
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    RPC_TIMEOUT_MS: '5000',
    SSH_TIMEOUT_MS: '5000',
    RPC_METHOD_DENYLIST: 'dumpprivkey',
  })
  const app = buildApp(config, { log: { stream } })
  await app.ready()
  t.teardown(async () => {
    await app.close()
    await database.cleanup()
  })

  const node = await startNodeSimulator({ password: RPC_PASSWORD })
  t.teardown(() => node.close())
  const responses: { name: string; res: LightMyRequestResponse }[] = []
  let cookie = ''
  const call = async (name: string, request: InjectOptions, expected: number) => {
    const res = await app.inject({ ...request, headers: { ...(cookie ? { cookie } : {}), ...request.headers } })
    t.equal(res.statusCode, expected, `${name}: ${res.statusCode} ${preview(res)}`)
    responses.push({ name, res })
    return res
  }
  const put = (name: string, payload: object, expected = 200) =>
    call(name, { method: 'PUT', url: '/api/settings', payload }, expected)
  const rpcCall = (name: string, payload: object, expected = 200) =>
    call(name, { method: 'POST', url: '/api/rpc/call', payload }, expected)

  await call(
    'bad login',
    { method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: TYPO_PASSWORD } },
    401,
  )
  await call(
    'bad user',
    { method: 'POST', url: '/api/auth/login', payload: { username: DASHBOARD_PASSWORD, password: 'x' } },
    401,
  )
  await call(
    'too long password',
    {
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'admin', password: `${DASHBOARD_PASSWORD}${'x'.repeat(1024)}` },
    },
    422,
  )
  const login = await call(
    'login',
    { method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: DASHBOARD_PASSWORD } },
    200,
  )
  const value = login.cookies.find((c) => c.name === 'dashboard_session')!.value
  cookie = `dashboard_session=${value}`
  const sid = decodeURIComponent(value).split('.')[0]

  const settings = {
    rpc_url: node.url,
    rpc_username: 'u',
    rpc_password: RPC_PASSWORD,
    rpc_wallet: 'w1',
    ssh_host: '127.0.0.1',
    ssh_port: await freePort(),
    ssh_username: 'operator',
    ssh_password: SSH_PASSWORD,
    ssh_key_path: '',
    config_path: '/etc/bitcoin/bitcoin.conf',
  }
  t.match((await put('save settings', settings)).json(), { rpc_password: '********', ssh_password: '********' })
  t.match((await call('read settings', { method: 'GET', url: '/api/settings' }, 200)).json(), {
    rpc_password: '********',
    ssh_password: '********',
  })
  await put('mask keeps secrets', { rpc_password: '********', ssh_password: '********' })
  await put('control character in a secret', { rpc_password: `${RPC_PASSWORD}\u0007` }, 422)
  await put('credentials in rpc_url', { rpc_url: node.url.replace('://', `://u:${RPC_PASSWORD}@`) }, 422)

  // The right password: every read path that talks to the node.
  await rpcCall('rpc call', { method: 'getblockcount', params: [] })
  await rpcCall('rpc call on a wallet', { method: 'getwalletinfo', params: [], wallet: 'w1' })
  await rpcCall('rpc error', { method: 'getblockhash', params: [999999] }, 502)
  await rpcCall('secret parameter', { method: 'walletpassphrase', params: [PASSPHRASE, 60], wallet: 'w1' }, 502)
  await rpcCall('denied method', { method: 'dumpprivkey', params: [PASSPHRASE] }, 403)
  await call('summary', { method: 'GET', url: '/api/dashboard/summary' }, 200)
  await call('history', { method: 'GET', url: '/api/dashboard/history?window=5m' }, 200)
  await call('history path', { method: 'GET', url: '/api/dashboard/history/all' }, 200)
  await call('commands', { method: 'GET', url: '/api/rpc/commands' }, 200)
  await call('help', { method: 'GET', url: '/api/rpc/help/getblockcount' }, 200)

  // A wrong RPC password: the 502 says so without repeating it.
  await put('wrong rpc password', { rpc_password: WRONG_RPC_PASSWORD })
  const denied = await rpcCall('rpc with wrong password', { method: 'getblockcount', params: [] }, 502)
  t.match(denied.json().detail, /authentication failed/)
  await call('summary with wrong password', { method: 'GET', url: '/api/dashboard/summary' }, 502)
  await call('commands with wrong password', { method: 'GET', url: '/api/rpc/commands' }, 502)
  await call('stop with wrong password', { method: 'POST', url: '/api/actions/stop' }, 502)
  await call('restart with wrong password', { method: 'POST', url: '/api/actions/restart' }, 502)
  await put('unreachable rpc', { rpc_url: `http://127.0.0.1:${await freePort()}/` })
  await rpcCall('rpc unreachable', { method: 'getblockcount', params: [] }, 502)

  // SSH: nobody listening, then servers that refuse the password.
  await call('ssh unreachable', { method: 'POST', url: '/api/actions/start' }, 502)
  const ssh2 = await startPasswordSshServer()
  t.teardown(() => ssh2.close())
  // A new SSH target drops the stored password unless it is sent again (it must still reach these servers).
  await put('ssh2 server', { ssh_port: ssh2.port, ssh_username: ssh2.username, ssh_password: SSH_PASSWORD })
  t.match((await call('ssh wrong password', { method: 'POST', url: '/api/actions/start' }, 502)).json().detail, /authentication/)
  if (!sshdUnavailable()) {
    const sshd = await startSshd()
    t.teardown(() => sshd.stop())
    await put('real sshd', {
      ssh_port: sshd.port,
      ssh_username: sshd.username,
      ssh_host_key_fingerprint: '',
      ssh_password: SSH_PASSWORD,
    })
    await call('sshd refuses the password', { method: 'POST', url: '/api/actions/start' }, 502)
  } else {
    // A missing system component: a visible skip, not a silent pass.
    t.pass('the real sshd refuses the password', { skip: sshdUnavailable() ?? true })
  }
  await call('logout', { method: 'POST', url: '/api/auth/logout' }, 200)

  const secrets: Record<string, string> = {
    DASHBOARD_PASSWORD,
    TYPO_PASSWORD,
    SESSION_SECRET,
    RPC_PASSWORD,
    WRONG_RPC_PASSWORD,
    SSH_PASSWORD,
    'basic auth (right)': basic(RPC_PASSWORD),
    'basic auth (wrong)': basic(WRONG_RPC_PASSWORD),
  }
  const session: Record<string, string> = { 'session cookie': value, 'decoded session cookie': decodeURIComponent(value), sid }

  for (const { name, res } of responses) {
    const headers = { ...res.headers }
    if (name === 'login') delete headers['set-cookie'] // the one place the cookie belongs
    const text = `${JSON.stringify(headers)}\n${res.body}`
    for (const [label, secret] of Object.entries({ ...secrets, ...session })) {
      t.notOk(text.includes(secret), `${name}: response has no ${label}`)
    }
  }

  t.ok(lines.length > responses.length, `${lines.length} log lines captured`)
  t.equal(app.log.level, 'trace', 'nothing filtered out by level')
  t.ok(
    lines.some((l) => l.includes('"msg":"POST /api/auth/login ') && l.includes('"req":{')),
    'request lines (with their req fields) are among them',
  )
  t.ok(
    lines.some((l) => l.includes('node action failed')),
    'the failure paths logged',
  )
  for (const [label, secret] of Object.entries({ ...secrets, ...session, PASSPHRASE })) {
    const leaks = lines.filter((l) => l.includes(secret))
    t.same(leaks, [], `no log line has the ${label}`)
  }

  // Secrets are encrypted at rest; audits keep no parameters.
  const { rows: tables } = await app.db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  )
  t.ok(tables.length >= 5, `${tables.length} tables`)
  for (const { name } of tables) {
    const { rows } = await app.db.query(`SELECT row_to_json(x)::text AS j FROM "${name}" x`)
    const dump = rows.map((r: { j?: string }) => r.j).join('\n')
    for (const [label, secret] of Object.entries({ ...secrets, PASSPHRASE })) {
      t.notOk(dump.includes(secret), `table ${name} holds no plaintext ${label}`)
    }
  }
})

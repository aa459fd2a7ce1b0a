import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServer as createTcpServer, type Socket } from 'node:net'
import { NODE_BINARY, startNodeSimulator } from '@app/node-simulator'
import { freePort } from '@app/testing'
import { type Sshd, sshdUnavailable, startSshd } from '@app/testing/ssh'
import t from 'tap'
import { build, login } from '../helper.ts'

// Generous bounds for answers that come (the machine may be loaded); a second app with short ones for hangs.
const app = await build(t, { env: { RPC_TIMEOUT_MS: '20000', SSH_TIMEOUT_MS: '20000' } })
const session = await login(app)
const impatient = await build(t, { env: { RPC_TIMEOUT_MS: '500', SSH_TIMEOUT_MS: '1000' } })
const impatientSession = await login(impatient)
const { test } = t

const check = (kind: 'rpc' | 'ssh', payload: object) =>
  app.inject({ method: 'POST', url: `/api/settings/check/${kind}`, headers: { cookie: session }, payload })
const checkImpatiently = (kind: 'rpc' | 'ssh', payload: object) =>
  impatient.inject({ method: 'POST', url: `/api/settings/check/${kind}`, headers: { cookie: impatientSession }, payload })
const stored = async () => (await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie: session } })).json()

/** A TCP listener that accepts and never says anything (a hung node or SSH server). */
async function silentListener() {
  const sockets: Socket[] = []
  const server = createTcpServer((socket) => sockets.push(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return new Promise((resolve) => server.close(resolve))
  })
  return (server.address() as AddressInfo).port
}

test('RPC: the node version and chain, or the exact failure; nothing is saved', async (t) => {
  const node = await startNodeSimulator({ user: 'u', password: 'rpc-pw' })
  t.teardown(() => node.close())
  const before = await stored()

  const ok = await check('rpc', { rpc_url: node.url, rpc_username: 'u', rpc_password: 'rpc-pw' })
  t.equal(ok.statusCode, 200)
  t.match(ok.json(), {
    ok: true,
    failure: null,
    authentication: 'password',
    node: { version: 300000, subversion: '/Satoshi:30.0.0/', chain: 'regtest', blocks: 101 },
  })
  t.same(await stored(), before, 'a test saves nothing')

  const cases: [string, object, string, RegExp][] = [
    ['wrong password', { rpc_url: node.url, rpc_username: 'u', rpc_password: 'nope' }, 'auth', /HTTP 401/],
    ['nothing listening', { rpc_url: `http://127.0.0.1:${await freePort()}/` }, 'refused', /connection refused/],
    ['no rpc_url', { rpc_url: '' }, 'not-configured', /set rpc_url/],
  ]
  for (const [label, body, failure, detail] of cases) {
    const res = await check('rpc', body)
    t.equal(res.statusCode, 200, label)
    t.match(res.json(), { ok: false, failure, detail, node: null }, label)
    t.notOk(res.body.includes('rpc-pw'), `${label}: no secret in the answer`)
  }

  const hung = await checkImpatiently('rpc', { rpc_url: `http://127.0.0.1:${await silentListener()}/` })
  t.match(hung.json(), { ok: false, failure: 'timeout', detail: /timed out after 500 ms/ }, 'a node that never answers')

  node.setWarmup('Loading block index…')
  const warm = await check('rpc', { rpc_url: node.url, rpc_username: 'u', rpc_password: 'rpc-pw' })
  t.match(warm.json(), { ok: false, failure: 'warmup', detail: /Loading block index…/ })
})

test('RPC: a stored password is tested only against its own origin', async (t) => {
  const headers: (string | undefined)[] = []
  const listener = createHttpServer((request, response) => {
    headers.push(request.headers.authorization)
    response.writeHead(401).end()
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => listener.close(resolve)))
  const elsewhere = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/`
  await app.settingsCache.update({ rpc_url: 'http://127.0.0.1:18443/', rpc_username: 'u', rpc_password: 'stored-secret' })

  const res = await check('rpc', { rpc_url: elsewhere, rpc_password: '********' })
  t.match(res.json(), { ok: false, failure: 'auth' })
  t.equal(headers.length, 1)
  const sent = Buffer.from(String(headers[0]).replace(/^Basic /, ''), 'base64').toString('utf8')
  t.equal(sent, 'u:', 'the stored password did not follow the new origin')
})

test('RPC: the body is validated like a settings update', async (t) => {
  const res = await check('rpc', { rpc_url: 'ftp://example.org/' })
  t.equal(res.statusCode, 422)
  t.match(res.json().detail, 'rpc_url')
  const anonymous = await app.inject({ method: 'POST', url: '/api/settings/check/rpc', payload: {} })
  t.equal(anonymous.statusCode, 401)
})

const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP real-sshd connection tests: ${unavailable}`)

test('SSH: the node version over a real sshd, or the exact failure', { skip: unavailable ?? false }, async (t) => {
  const sshd: Sshd = await startSshd()
  t.teardown(() => sshd.stop())
  const account = {
    ssh_host: sshd.host,
    ssh_port: sshd.port,
    ssh_username: sshd.username,
    ssh_key_path: sshd.clientKeyPath,
    ssh_password: '',
    node_binary: NODE_BINARY,
    ssh_host_key_fingerprint: '',
  }
  const ok = await check('ssh', account)
  t.equal(ok.statusCode, 200)
  t.match(ok.json(), {
    ok: true,
    failure: null,
    node_version: 'Bitcoin Core daemon version v30.0.0',
    host_key_fingerprint: sshd.hostFingerprint,
    host_key_pinned: false,
  })
  t.equal((await stored()).ssh_host_key_fingerprint, '', 'a test never records the host key')

  const pinned = await check('ssh', { ...account, ssh_host_key_fingerprint: sshd.hostFingerprint })
  t.match(pinned.json(), { ok: true, host_key_pinned: true })

  const other = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
  const cases: [string, object, string, RegExp][] = [
    ['host key mismatch', { ...account, ssh_host_key_fingerprint: other }, 'host-key', /host key .* changed/],
    ['a key the host does not accept', { ...account, ssh_key_path: sshd.strangerKeyPath }, 'auth', /authentication/],
    ['nothing listening', { ...account, ssh_port: await freePort() }, 'refused', /ECONNREFUSED/],
    ['no node binary there', { ...account, node_binary: '/nonexistent/bitcoind' }, 'node-binary', /exited with code 127/],
    ['an unreadable key file', { ...account, ssh_key_path: '/nonexistent/key' }, 'settings', /ENOENT/],
    ['no account', { ssh_host: '' }, 'not-configured', /ssh_host/],
  ]
  for (const [label, body, failure, detail] of cases) {
    const res = await check('ssh', body)
    t.equal(res.statusCode, 200, label)
    t.match(res.json(), { ok: false, failure, detail }, label)
  }
  const hung = await checkImpatiently('ssh', { ...account, ssh_port: await silentListener() })
  t.match(hung.json(), { ok: false, failure: 'timeout', detail: /timed out/ }, 'a host that never answers')
})

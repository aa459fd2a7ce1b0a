import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { createNodeHost, startNodeSimulator } from '@app/node-simulator'
import { freePort } from '@app/testing'
import { type Sshd, sshdUnavailable, startSshd } from '@app/testing/ssh'
import t from 'tap'
import { createRpcClient } from '../../src/rpc/client.ts'
import { createCookieReader } from '../../src/rpc/cookie.ts'
import { isRpcError, type RpcError } from '../../src/rpc/errors.ts'
import { readRegularFile } from '../../src/settings/local-file.ts'
import type { NodeSettings } from '../../src/settings/repository.ts'
import { build, login } from '../helper.ts'

const { test } = t
const dir = await mkdtemp(path.join(tmpdir(), 'rpc-cookie-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

const newCookie = () => `__cookie__:${randomBytes(32).toString('hex')}`
const passwordOf = (cookie: string) => cookie.slice('__cookie__:'.length)

function settingsFor(url: string, extra: Partial<NodeSettings> = {}): NodeSettings {
  return {
    rpc_url: url,
    rpc_username: '',
    rpc_password: '',
    rpc_wallet: '',
    rpc_cookie_path: '',
    config_path: '',
    ssh_host: '',
    ssh_port: 22,
    ssh_username: '',
    ssh_password: '',
    ssh_key_path: '',
    node_binary: 'bitcoind',
    ssh_host_key_fingerprint: '',
    ...extra,
  }
}

/** A cookie reader whose local reads are counted (each one is a re-read of the file). */
function countingReader(options: Partial<Parameters<typeof createCookieReader>[0]> = {}) {
  const reads: string[] = []
  const readLocal = options.readLocal ?? readRegularFile
  const reader = createCookieReader({
    sshTimeoutMs: 10_000,
    ...options,
    readLocal: (file, max) => {
      reads.push(file)
      return readLocal(file, max)
    },
  })
  return { reader, reads }
}

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise
  } catch (error) {
    if (isRpcError(error)) return error
    throw error
  }
  throw new Error('expected a failure')
}

/** An HTTP listener that counts requests: whatever reaches it was sent by the client. */
async function countingListener() {
  const authorizations: (string | undefined)[] = []
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization)
    response.writeHead(401).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, authorizations }
}

test('the cookie file is read, sent as __cookie__ Basic auth, and read again once when the node restarted', async (t) => {
  const file = path.join(dir, 'restart.cookie')
  const port = await freePort()
  let cookie = newCookie()
  await writeFile(file, cookie, { mode: 0o600 })
  let node = await startNodeSimulator({ port, user: '__cookie__', password: passwordOf(cookie) })
  t.teardown(() => node.close())
  const { reader, reads } = countingReader()
  const settings = settingsFor(node.url, { rpc_cookie_path: file })
  const client = createRpcClient({ settings: async () => settings, timeoutMs: 5000, cookies: reader })

  t.equal(await client.call('getblockcount'), 101)
  t.equal(await client.call('getblockcount'), 101)
  t.equal(reads.length, 1, 'the cookie is kept in memory between calls')

  // A restart: the node writes a new cookie and refuses the old one.
  await node.close()
  cookie = newCookie()
  await writeFile(file, cookie, { mode: 0o600 })
  node = await startNodeSimulator({ port, user: '__cookie__', password: passwordOf(cookie) })
  const [a, b] = await Promise.all([client.call('getblockcount'), client.call('getbestblockhash')])
  t.equal(a, 101)
  t.type(b, 'string')
  t.equal(reads.length, 2, 'two calls refused at once re-read the file once')

  // A file whose cookie the node refuses too (another node's): one re-read, then a clear 502.
  await node.close()
  node = await startNodeSimulator({ port, user: '__cookie__', password: passwordOf(newCookie()) })
  await writeFile(file, newCookie(), { mode: 0o600 })
  const error = await failure(client.call('getblockcount'))
  t.equal(error.kind, 'auth')
  t.equal(error.statusCode, 502)
  t.match(error.message, `the cookie in ${file} was refused`)
  t.equal(reads.length, 3)
  t.notOk(error.message.includes(passwordOf(cookie)), 'the cookie is not in the message')
})

test('rpc_password wins over the cookie file', async (t) => {
  const node = await startNodeSimulator({ user: 'u', password: 'pw' })
  t.teardown(() => node.close())
  const { reader, reads } = countingReader()
  const settings = settingsFor(node.url, { rpc_username: 'u', rpc_password: 'pw', rpc_cookie_path: '/nonexistent/.cookie' })
  const client = createRpcClient({ settings: async () => settings, timeoutMs: 5000, cookies: reader })
  t.equal(await client.call('getblockcount'), 101)
  t.equal(reads.length, 0)
})

test('only a file shaped like a bitcoind cookie is sent: other files never leave the host', async (t) => {
  const listener = await countingListener()
  const fifo = path.join(dir, 'fifo')
  await promisify(execFile)('mkfifo', [fifo])
  const big = path.join(dir, 'big')
  await writeFile(big, `__cookie__:${'a'.repeat(2000)}`)
  const other = path.join(dir, 'passwd')
  await writeFile(other, 'root:x:0:0:root:/root:/bin/bash\n')
  const cases: [string, string, string][] = [
    ['another file', other, 'it is not a bitcoind cookie'],
    ['a directory', dir, 'not a regular file'],
    ['a FIFO', fifo, 'not a regular file'],
    ['a file over 1 KiB', big, 'larger than 1024 bytes'],
    [
      'a missing file with no SSH account',
      path.join(dir, 'missing'),
      'no such file on this host, and SSH to the node host is not set up',
    ],
  ]
  for (const [label, file, why] of cases) {
    const { reader } = countingReader()
    const settings = settingsFor(listener.url, { rpc_cookie_path: file })
    const client = createRpcClient({ settings: async () => settings, timeoutMs: 5000, cookies: reader })
    const error = await failure(client.call('getblockcount'))
    t.equal(error.kind, 'auth', label)
    t.match(error.message, `Cannot read the node's RPC cookie file ${file}: ${why}`, label)
  }
  t.same(listener.authorizations, [], 'nothing was sent to rpc_url')
})

test('a failed read is remembered briefly, so a stopped node is not asked at every call', async (t) => {
  const listener = await countingListener()
  const { reader, reads } = countingReader()
  const settings = settingsFor(listener.url, { rpc_cookie_path: path.join(dir, 'not-yet') })
  const client = createRpcClient({ settings: async () => settings, timeoutMs: 5000, cookies: reader })
  for (let i = 0; i < 3; i++) await failure(client.call('getblockcount'))
  t.equal(reads.length, 1)
})

test('the dashboard follows a daemonised node through restarts by its cookie file', async (t) => {
  const host = await createNodeHost({ cookieAuth: true, lockHoldMs: 100 })
  t.teardown(() => host.cleanup())
  await host.writeConf()
  t.equal((await host.start()).code, 0)
  await host.waitReady()
  const first = await readFile(host.cookiePath, 'utf8')

  const app = await build(t)
  const session = await login(app)
  const put = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie: session },
    payload: { rpc_url: host.url, rpc_cookie_path: host.cookiePath },
  })
  t.equal(put.statusCode, 200)
  t.equal(put.json().rpc_cookie_path, host.cookiePath)
  const call = () =>
    app.inject({ method: 'POST', url: '/api/rpc/call', headers: { cookie: session }, payload: { method: 'getblockcount' } })
  const before = await call()
  t.equal(before.statusCode, 200)
  t.equal(before.json().result, 101)

  // Stop through the dashboard (RPC stop with the cookie), start again: the node writes a new cookie.
  const stop = await app.inject({ method: 'POST', url: '/api/actions/stop', headers: { cookie: session } })
  t.equal(stop.statusCode, 200)
  await host.waitExited()
  t.equal((await host.start()).code, 0)
  await host.waitReady()
  const second = await readFile(host.cookiePath, 'utf8')
  t.not(second, first, 'the node rotated its cookie')
  const after = await call()
  t.equal(after.statusCode, 200, after.body)

  const settings = await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie: session } })
  for (const text of [settings.body, before.body, after.body, stop.body]) {
    t.notOk(text.includes(passwordOf(first)) || text.includes(passwordOf(second)), 'no answer carries the cookie')
  }
})

test('rpc_cookie_path must be absolute, and moving rpc_url to another origin clears it', async (t) => {
  const app = await build(t)
  const session = await login(app)
  const put = (payload: object) => app.inject({ method: 'PUT', url: '/api/settings', headers: { cookie: session }, payload })
  const relative = await put({ rpc_cookie_path: 'data/.cookie' })
  t.equal(relative.statusCode, 422)
  t.match(relative.json().detail, "Invalid body field 'rpc_cookie_path': must be an absolute path")
  t.equal((await put({ rpc_url: 'http://127.0.0.1:18443/', rpc_cookie_path: '/data/regtest/.cookie' })).statusCode, 200)
  t.equal((await put({ rpc_url: 'http://127.0.0.1:18443/wallet/' })).json().rpc_cookie_path, '/data/regtest/.cookie')
  t.equal((await put({ rpc_url: 'http://127.0.0.2:18443/' })).json().rpc_cookie_path, '', 'another host: cleared')
  const resent = await put({ rpc_url: 'http://127.0.0.3:18443/', rpc_cookie_path: '/data/regtest/.cookie' })
  t.equal(resent.json().rpc_cookie_path, '/data/regtest/.cookie', 'kept when sent again with the new origin')
})

const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP real-sshd cookie tests: ${unavailable}`)

test('a cookie that is not on the dashboard host is read over SSH (real sshd)', { skip: unavailable ?? false }, async (t) => {
  const sshd: Sshd = await startSshd()
  t.teardown(() => sshd.stop())
  const host = await createNodeHost({ cookieAuth: true, lockHoldMs: 100 })
  t.teardown(() => host.cleanup())
  await host.writeConf()
  t.equal((await host.start()).code, 0)
  await host.waitReady()

  const recorded: string[] = []
  // The dashboard runs elsewhere: its own file system has no such path.
  const elsewhere = async (file: string) => {
    throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' })
  }
  const { reader, reads } = countingReader({
    readLocal: elsewhere,
    recordHostKey: async (fingerprint) => recorded.push(fingerprint),
  })
  const ssh = { ssh_host: sshd.host, ssh_port: sshd.port, ssh_username: sshd.username, ssh_key_path: sshd.clientKeyPath }
  const settings = settingsFor(host.url, { ...ssh, rpc_cookie_path: host.cookiePath })
  const client = createRpcClient({ settings: async () => settings, timeoutMs: 5000, cookies: reader })
  t.equal(await client.call('getblockcount'), 101)
  t.equal(reads.length, 1)
  t.same(recorded, [sshd.hostFingerprint], 'the host key is recorded on first use, as the start action does')

  const direct = await reader(settings)
  t.equal(direct.source, 'ssh')
  t.equal(`${direct.user}:${direct.password}`, await readFile(host.cookiePath, 'utf8'))

  await mkdir(path.join(host.dir, 'a-directory'))
  const remoteCases: [string, string][] = [
    [path.join(host.dir, 'no-such-cookie'), 'no such file on the node host'],
    [path.join(host.dir, 'a-directory'), 'not a regular file on the node host'],
    [`${host.dir}/x'; touch ${host.dir}/pwned; '`, 'no such file on the node host'],
  ]
  for (const [file, why] of remoteCases) {
    const error = await failure(reader({ ...settings, rpc_cookie_path: file }))
    t.match(error.message, why, file)
  }
  await t.rejects(readFile(path.join(host.dir, 'pwned')), 'a hostile path runs nothing on the node host')

  const wrongKey = await failure(
    reader({ ...settings, ssh_host_key_fingerprint: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
  )
  t.match(wrongKey.message, 'SSH host key')
})

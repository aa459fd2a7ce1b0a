import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { freePort } from '@app/testing'
import t from 'tap'
import { build, login } from '../helper.ts'

// One instance for the file; each test sets the settings it starts from.
const app = await build(t)
const cookie = await login(app)
const { test } = t

const MASK = '********'
const RPC_SECRET = `stored-rpc-secret-${process.pid}-Xy9`
const SSH_SECRET = `stored-ssh-secret-${process.pid}-Qp4`

/** A JSON-RPC endpoint on 127.0.0.1 that answers every call and keeps each Authorization header it receives. */
async function recordingListener() {
  const authorizations: (string | undefined)[] = []
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization)
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      let id: unknown = null
      try {
        id = JSON.parse(body).id
      } catch {}
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ result: 1, error: null, id }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  /** The passwords the listener was sent ('' for a header without one, null for no header). */
  const passwords = () =>
    authorizations.map((header) => {
      if (header === undefined) return null
      const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8')
      return decoded.slice(decoded.indexOf(':') + 1)
    })
  return { port: (server.address() as AddressInfo).port, authorizations, passwords }
}

const put = (payload: object) => app.inject({ method: 'PUT', url: '/api/settings', headers: { cookie }, payload })
const read = async () => (await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie } })).json()
const callRpc = () =>
  app.inject({ method: 'POST', url: '/api/rpc/call', headers: { cookie }, payload: { method: 'getblockcount', params: [] } })

test('re-pointing rpc_url to another origin drops the stored rpc_password: the new listener never receives it', async (t) => {
  const listener = await recordingListener()
  const target = `http://127.0.0.1:${listener.port}/`
  const origins: [string, string][] = [
    ['another port', `http://127.0.0.1:${await freePort()}/`],
    ['another host', `http://127.0.0.2:${listener.port}/`],
    ['another scheme', `https://127.0.0.1:${listener.port}/`],
  ]
  for (const [label, original] of origins) {
    for (const sent of [{}, { rpc_password: MASK }]) {
      const name = `${label}${'rpc_password' in sent ? ', mask sent back' : ''}`
      t.equal((await put({ rpc_url: original, rpc_username: 'u', rpc_password: RPC_SECRET })).statusCode, 200)
      t.equal((await read()).rpc_password, MASK, `${name}: stored`)
      listener.authorizations.length = 0
      const moved = await put({ rpc_url: target, ...sent })
      t.equal(moved.statusCode, 200, name)
      t.equal(moved.json().rpc_password, '', `${name}: the answer reports it unset`)
      t.equal((await read()).rpc_password, '', `${name}: a later read reports it unset`)
      t.equal((await app.settingsCache.get()).rpc_password, '', `${name}: gone from the store`)
      t.equal((await callRpc()).statusCode, 200, `${name}: the call reached the listener`)
      t.ok(listener.authorizations.length >= 1, `${name}: the listener was called`)
      t.notOk(listener.passwords().includes(RPC_SECRET), `${name}: the listener never received the stored password`)
      t.same(
        listener.passwords().filter((p) => p !== null && p !== ''),
        [],
        `${name}: no password at all`,
      )
    }
  }
})

test('the same origin keeps rpc_password; a password sent with the new origin is the one used', async (t) => {
  const listener = await recordingListener()
  const target = `http://127.0.0.1:${listener.port}/`
  await put({ rpc_url: target, rpc_username: 'u', rpc_password: RPC_SECRET })
  const samePlace: [string, object][] = [
    ['the page re-saving the same values', { rpc_url: target, rpc_username: 'u', rpc_wallet: '' }],
    ['another path on the same origin', { rpc_url: `${target}node/` }],
    ['the same origin without the trailing slash', { rpc_url: `http://127.0.0.1:${listener.port}` }],
  ]
  for (const [label, payload] of samePlace) {
    t.equal((await put(payload)).json().rpc_password, MASK, `${label}: kept`)
  }
  await put({ rpc_url: target })
  listener.authorizations.length = 0
  t.equal((await callRpc()).statusCode, 200)
  t.same(listener.passwords(), [RPC_SECRET], 'the listener sees the kept password (it records what it is sent)')

  await put({ rpc_url: `http://127.0.0.1:${await freePort()}/`, rpc_password: RPC_SECRET })
  const replaced = await put({ rpc_url: target, rpc_password: 'typed-again' })
  t.equal(replaced.json().rpc_password, MASK, 'a password sent with the move is stored')
  listener.authorizations.length = 0
  await callRpc()
  t.same(listener.passwords(), ['typed-again'])
})

test('changing the SSH host, port, user or pinned host key drops the stored ssh_password', async (t) => {
  const pinned = `SHA256:${'A'.repeat(43)}`
  const base = {
    ssh_host: 'node.lan',
    ssh_port: 2222,
    ssh_username: 'operator',
    ssh_host_key_fingerprint: pinned,
  }
  const changes: [string, object][] = [
    ['host', { ssh_host: 'listener.example' }],
    ['port', { ssh_port: 2200 }],
    ['user', { ssh_username: 'root' }],
    ['cleared host key', { ssh_host_key_fingerprint: '' }],
    ['another host key', { ssh_host_key_fingerprint: `SHA256:${'B'.repeat(43)}` }],
    ['host, mask sent back', { ssh_host: 'listener.example', ssh_password: MASK }],
  ]
  for (const [label, change] of changes) {
    t.equal((await put({ ...base, ssh_password: SSH_SECRET })).json().ssh_password, MASK, `${label}: stored`)
    const res = await put(change)
    t.equal(res.statusCode, 200, label)
    t.equal(res.json().ssh_password, '', `${label}: the answer reports it unset`)
    t.equal((await read()).ssh_password, '', `${label}: a later read reports it unset`)
    t.equal((await app.settingsCache.get()).ssh_password, '', `${label}: gone from the store`)
  }

  await put({ ...base, ssh_password: SSH_SECRET })
  t.equal((await put({ ...base, ssh_key_path: '', config_path: '/etc/b.conf' })).json().ssh_password, MASK, 'same target: kept')
  const moved = await put({ ssh_host: 'other.lan', ssh_password: 'typed-again' })
  t.equal(moved.json().ssh_password, MASK, 'a password sent with the change is stored')
  t.equal((await app.settingsCache.get()).ssh_password, 'typed-again')
})

test('an RPC move leaves the SSH password alone and the other way round', async (t) => {
  await put({
    rpc_url: 'http://127.0.0.1:8332/',
    rpc_password: RPC_SECRET,
    ssh_host: 'node.lan',
    ssh_password: SSH_SECRET,
  })
  t.match((await put({ rpc_url: 'http://127.0.0.1:18443/' })).json(), { rpc_password: '', ssh_password: MASK })
  await put({ rpc_password: RPC_SECRET })
  t.match((await put({ ssh_host: 'other.lan' })).json(), { rpc_password: MASK, ssh_password: '' })
})

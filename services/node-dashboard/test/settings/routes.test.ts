import t from 'tap'
import { build, login } from '../helper.ts'

// One instance for the file, in order: the first test sees the defaults of a fresh database.
const app = await build(t)
const cookie = await login(app)
const { test } = t

const MASK = '********'

test('GET /api/settings starts with defaults and no secrets', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/api/settings', headers: { cookie } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  t.same(res.json(), {
    rpc_url: '',
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
    demo_node: false,
  })
})

test('PUT trims strings, keeps absent fields, masks secrets and keeps them when the mask is sent back', async (t) => {
  const put = (payload: object) => app.inject({ method: 'PUT', url: '/api/settings', headers: { cookie }, payload })
  const first = await put({
    rpc_url: '  http://127.0.0.1:18443/  ',
    rpc_username: ' u ',
    rpc_password: '  s3cret-rpc ',
    ssh_host: ' node.lan ',
    ssh_port: 2222,
    ssh_password: 'ssh-pass',
    config_path: ' /etc/bitcoin/bitcoin.conf',
  })
  t.equal(first.statusCode, 200)
  t.match(first.json(), {
    rpc_url: 'http://127.0.0.1:18443/',
    rpc_username: 'u',
    rpc_password: MASK,
    ssh_host: 'node.lan',
    ssh_port: 2222,
    ssh_password: MASK,
    config_path: '/etc/bitcoin/bitcoin.conf',
  })
  t.notMatch(first.body, /s3cret-rpc|ssh-pass/)

  const second = await put({ rpc_wallet: 'w1', rpc_password: MASK })
  t.match(second.json(), { rpc_url: 'http://127.0.0.1:18443/', rpc_wallet: 'w1', rpc_password: MASK, ssh_port: 2222 })
  const stored = await app.settingsCache.get()
  t.equal(stored.rpc_password, 's3cret-rpc', 'the mask kept the stored secret (trimmed)')
  t.equal(stored.ssh_password, 'ssh-pass')

  const cleared = await put({ ssh_password: '' })
  t.equal(cleared.json().ssh_password, '')
  t.equal((await app.settingsCache.get()).ssh_password, '')
})

test('secrets are encrypted at rest', async (t) => {
  await app.settingsCache.update({ rpc_password: 'plain-rpc-secret', ssh_password: 'plain-ssh-secret' })
  const { rows } = await app.db.query<Record<string, string>>('SELECT * FROM node_settings')
  const text = JSON.stringify(rows)
  t.notMatch(text, /plain-rpc-secret|plain-ssh-secret/)
  t.match(rows[0].rpc_password_enc, /^v1:/)
  t.equal((await app.settingsCache.get()).rpc_password, 'plain-rpc-secret')
})

test('stored secrets stay readable after a restart with the same DATA_DIR', async (t) => {
  await app.settingsCache.update({ rpc_password: 'kept' })
  const second = await build(t, { shareWith: app })
  t.equal((await second.settingsCache.get()).rpc_password, 'kept')
})

test('PUT validation answers 422 naming the field', async (t) => {
  const cases: [object, RegExp][] = [
    [{ ssh_port: 0 }, /ssh_port/],
    [{ ssh_port: 65536 }, /ssh_port/],
    [{ ssh_port: 22.5 }, /ssh_port/],
    [{ ssh_port: 'ssh' }, /ssh_port/],
    [{ rpc_url: 'ftp://node:21/' }, /rpc_url/],
    [{ rpc_url: 'not a url' }, /rpc_url/],
    [{ rpc_url: 'http://user:pw@node:8332/' }, /rpc_url.*credentials/],
    [{ rpc_username: 'a\nb' }, /rpc_username/],
    [{ ssh_host: 'x'.repeat(256) }, /ssh_host/],
    [{ ssh_host_key_fingerprint: 'MD5:aa:bb' }, /ssh_host_key_fingerprint/],
    [{ unknown_field: 1 }, /unknown_field/],
  ]
  for (const [payload, field] of cases) {
    const res = await app.inject({ method: 'PUT', url: '/api/settings', headers: { cookie }, payload })
    t.equal(res.statusCode, 422, JSON.stringify(payload))
    t.match(res.json().detail, field, JSON.stringify(payload))
  }
  const spelled = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie },
    payload: { ssh_port: '2200', rpc_url: '' },
  })
  t.equal(spelled.statusCode, 422, 'a numeric string is not the integer it spells: bodies are not coerced')
  const ok = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie },
    payload: { ssh_port: 2200, rpc_url: '' },
  })
  t.equal(ok.json().ssh_port, 2200, 'an integer is accepted')
})

test('recordHostKey stores the first fingerprint only (trust on first use); clearing it re-arms', async (t) => {
  const a = `SHA256:${'A'.repeat(43)}`
  const b = `SHA256:${'B'.repeat(43)}`
  t.equal(await app.settingsCache.recordHostKey(a), true)
  t.equal(await app.settingsCache.recordHostKey(b), false)
  t.equal((await app.settingsCache.get()).ssh_host_key_fingerprint, a)
  const cleared = await app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: { cookie },
    payload: { ssh_host_key_fingerprint: ' ' },
  })
  t.equal(cleared.json().ssh_host_key_fingerprint, '')
  t.equal(await app.settingsCache.recordHostKey(b), true)
})

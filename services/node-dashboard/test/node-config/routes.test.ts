import { createHash } from 'node:crypto'
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type Sshd, sshdUnavailable, startSshd } from '@app/testing/ssh'
import t from 'tap'
import { build, login } from '../helper.ts'

const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP node config tests (they edit the file over a real sshd): ${unavailable}`)

const CONF = [
  '# written by the node operator',
  'server=1',
  'dbcache=450',
  'rpcpassword=node-rpc-secret',
  'rpcauth=alice:f7efda5c189b999524f151318c0c86$d5b51b3beffbc02b724e5d095828e0bc8b2456e9',
  '[regtest]',
  'rpcport=18443',
  '',
].join('\n')

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')

t.test('the node config file over SSH', { skip: unavailable ?? false }, async (t) => {
  const sshd: Sshd = await startSshd()
  t.teardown(() => sshd.stop())
  const dir = await mkdtemp(path.join(tmpdir(), 'node-config-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'bitcoin.conf')

  const app = await build(t, { env: { SSH_TIMEOUT_MS: '20000' } })
  const cookie = await login(app)
  const get = () => app.inject({ method: 'GET', url: '/api/node/config', headers: { cookie } })
  const put = (payload: object, headers: Record<string, string> = {}) =>
    app.inject({ method: 'PUT', url: '/api/node/config', headers: { cookie, ...headers }, payload })

  t.equal((await get()).statusCode, 400, 'no SSH settings yet')
  t.match((await get()).json().detail, 'ssh_host')
  await app.settingsCache.update({
    ssh_host: sshd.host,
    ssh_port: sshd.port,
    ssh_username: sshd.username,
    ssh_key_path: sshd.clientKeyPath,
    config_path: file,
  })

  await t.test('refuses what is not a small regular file', async (t) => {
    const missing = await get()
    t.equal(missing.statusCode, 404)
    t.match(missing.json().detail, `${file} does not exist`)
    await mkdir(file)
    t.equal((await get()).statusCode, 422, 'a directory')
    await rm(file, { recursive: true })
    await writeFile(file, `# ${'x'.repeat(256 * 1024)}\n`)
    const large = await get()
    t.equal(large.statusCode, 422)
    t.match(large.json().detail, 'larger than 262144 bytes')
  })

  await writeFile(file, CONF)
  await chmod(file, 0o640)

  await t.test('shows the file with its secrets masked', async (t) => {
    const res = await get()
    t.equal(res.statusCode, 200)
    const view = res.json()
    t.equal(view.sha256, sha256(CONF))
    t.equal(view.size, Buffer.byteLength(CONF))
    t.equal(view.masked_secrets, 2)
    t.same(view.options, { server: '1', dbcache: '450' })
    t.equal(view.problem, null)
    t.notOk(res.body.includes('node-rpc-secret') || res.body.includes('f7efda5c'), 'no secret in the answer')
    t.match(view.text, 'rpcauth=alice:********')
  })

  await t.test('saves atomically with a backup and an audited diff, keeping masked secrets', async (t) => {
    const view = (await get()).json()
    const edited = view.text.replace('dbcache=450', 'dbcache=1000')
    const res = await put({ text: edited, sha256: view.sha256 })
    t.equal(res.statusCode, 200, res.body)
    const saved = res.json()
    t.equal(saved.saved, true)
    t.equal(saved.restart_needed, true)
    const onDisk = await readFile(file, 'utf8')
    t.equal(onDisk, CONF.replace('dbcache=450', 'dbcache=1000'), 'the secrets stayed as they were')
    t.equal(saved.sha256, sha256(onDisk))
    t.equal((await stat(file)).mode & 0o777, 0o640, 'owner and mode are kept')
    t.match(saved.backup_path, new RegExp(`^${file.replaceAll('.', '\\.')}\\.bak-\\d{8}T\\d{6}Z$`))
    t.equal(await readFile(saved.backup_path, 'utf8'), CONF, 'the backup holds the previous file')
    t.match(saved.diff, /-dbcache=450\n\+dbcache=1000/)
    t.notOk(res.body.includes('node-rpc-secret'), 'no secret in the answer or the diff')
    t.same(
      (await readdir(dir)).filter((name) => name.includes('dashboard-')),
      [],
      'no temporary file is left behind',
    )
    const [row] = await app.nodeConfigSaves.recent(1)
    t.match(row, { path: file, backup_path: saved.backup_path, username: 'admin' })
    t.equal(row.diff, saved.diff)
    const audit = await app.audit.recent(5)
    t.match(audit[0], { kind: 'action', name: 'config-save', ok: true, username: 'admin' })
  })

  await t.test('refuses a stale edit, a bad value and a foreign origin, leaving the file as it was', async (t) => {
    const before = await readFile(file, 'utf8')
    const view = (await get()).json()
    const stale = await put({ text: view.text, sha256: sha256('an older version') })
    t.equal(stale.statusCode, 409)
    t.match(stale.json().detail, 'changed on the node host since it was loaded')
    const bad = await put({ text: `${view.text}prune=100\n`, sha256: view.sha256 })
    t.equal(bad.statusCode, 422)
    t.match(bad.json().detail, /Invalid config: line \d+: prune below the minimum of 550 MiB/)
    const lostSecret = await put({ text: `${view.text}rpcauth=carol:********\n`, sha256: view.sha256 })
    t.equal(lostSecret.statusCode, 422)
    const foreign = await put({ text: view.text, sha256: view.sha256 }, { origin: 'https://evil.example' })
    t.equal(foreign.statusCode, 403)
    t.equal(await readFile(file, 'utf8'), before)
  })

  await t.test('an unchanged text writes nothing', async (t) => {
    const view = (await get()).json()
    const res = await put({ text: view.text, sha256: view.sha256 })
    t.match(res.json(), { saved: false, backup_path: null, diff: '', restart_needed: false })
  })

  await t.test('a symlinked config keeps its link; the target changes', async (t) => {
    const target = path.join(dir, 'real.conf')
    const link = path.join(dir, 'link.conf')
    await writeFile(target, 'server=1\n')
    await symlink(target, link)
    await app.settingsCache.update({ config_path: link })
    const view = (await get()).json()
    const res = await put({ text: 'server=1\ntxindex=1\n', sha256: view.sha256 })
    t.equal(res.statusCode, 200, res.body)
    t.ok((await lstat(link)).isSymbolicLink())
    t.equal(await readFile(target, 'utf8'), 'server=1\ntxindex=1\n')
    await app.settingsCache.update({ config_path: file })
  })
})

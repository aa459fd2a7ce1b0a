import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '@app/testing'
import t from 'tap'
import { build, login } from '../helper.ts'

// One instance for the file; nothing listens on the SSH port: every case must be refused before connecting.
const app = await build(t, { env: { SSH_TIMEOUT_MS: '10000' } })
const cookie = await login(app)
const dir = await mkdtemp(path.join(tmpdir(), 'key-file-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
const sshPort = await freePort()
const { test } = t

/** POST /api/actions/start with every setting present and ssh_key_path set to `keyPath`. */
async function startWithKey(keyPath: string) {
  await app.settingsCache.update({
    ssh_host: '127.0.0.1',
    ssh_port: sshPort,
    ssh_username: 'operator',
    ssh_password: '',
    ssh_key_path: keyPath,
    config_path: '/etc/bitcoin/bitcoin.conf',
  })
  return answerOf(app.inject({ method: 'POST', url: '/api/actions/start', headers: { cookie } }))
}

/** A hang (a read that never ends or blocks) fails the test instead of stalling the run. */
function answerOf<T>(request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 15 s')), 15_000)
  })
  return Promise.race([request, hang]).finally(() => clearTimeout(timer))
}

test('/dev/zero is refused as not a regular file, without reading it', async (t) => {
  const res = await startWithKey('/dev/zero')
  t.equal(res.statusCode, 400)
  t.match(res.json().detail, /^ssh_key_path: cannot read the private key file \(not a regular file\)/)
})

test('a FIFO is refused as not a regular file, without waiting for a writer', async (t) => {
  const fifo = path.join(dir, 'key.fifo')
  execFileSync('mkfifo', [fifo])
  const res = await startWithKey(fifo)
  t.equal(res.statusCode, 400)
  t.match(res.json().detail, /^ssh_key_path: cannot read the private key file \(not a regular file\)/)
  const again = await answerOf(app.inject({ method: 'POST', url: '/api/actions/start', headers: { cookie } }))
  t.equal(again.statusCode, 400, 'the action lock was released: the next start answers too (not 409)')
})

test('a symbolic link to a FIFO is refused the same way', async (t) => {
  const fifo = path.join(dir, 'other.fifo')
  execFileSync('mkfifo', [fifo])
  const link = path.join(dir, 'key-link')
  await symlink(fifo, link)
  const res = await startWithKey(link)
  t.equal(res.statusCode, 400)
  t.match(res.json().detail, /\(not a regular file\)/)
})

test('a regular file over 64 KiB is refused as too large', async (t) => {
  const big = path.join(dir, 'big-key')
  await writeFile(big, 'x'.repeat(64 * 1024 + 1))
  const res = await startWithKey(big)
  t.equal(res.statusCode, 400)
  t.match(res.json().detail, /^ssh_key_path: cannot read the private key file \(larger than 65536 bytes\)/)
})

test('a regular file of at most 64 KiB is read and checked as a key', async (t) => {
  const small = path.join(dir, 'not-a-key')
  await writeFile(small, 'x'.repeat(64 * 1024))
  const res = await startWithKey(small)
  t.equal(res.statusCode, 400)
  t.match(res.json().detail, /^ssh_key_path: the file is not a usable private key/)
  const missing = await startWithKey(path.join(dir, 'no-such-key'))
  t.match(missing.json().detail, /cannot read the private key file \(ENOENT\)/)
  const directory = await startWithKey(dir)
  t.equal(directory.statusCode, 400)
  t.match(directory.json().detail, /cannot read the private key file \((not a regular file|EISDIR)\)/)
})

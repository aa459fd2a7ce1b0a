import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { freePort } from '@app/testing'
import { type Sshd, sshdUnavailable, startPasswordSshServer, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { keyProblem, runSshCommand, SshError } from '../../src/ssh/client.ts'
import { startCommand } from '../../src/ssh/command.ts'

const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP real-sshd tests: ${unavailable}`)

test('against a real OpenSSH server', { skip: unavailable ?? false }, async (t) => {
  const sshd: Sshd = await startSshd()
  t.teardown(() => sshd.stop())
  const base = { host: sshd.host, port: sshd.port, username: sshd.username, privateKey: sshd.clientKey, timeoutMs: 10_000 }

  await t.test('runs a command with key auth and reports the host key like ssh-keygen', async (t) => {
    const result = await runSshCommand({ ...base, command: 'echo hello; echo oops >&2' })
    t.equal(result.exit_code, 0)
    t.equal(result.stdout, 'hello\n')
    t.equal(result.stderr, 'oops\n')
    t.equal(result.fingerprint, sshd.hostFingerprint)
    t.ok(result.duration_ms >= 0)
  })

  await t.test('a non-zero exit is a result, not an error', async (t) => {
    const result = await runSshCommand({ ...base, command: 'echo out; echo err >&2; exit 3' })
    t.equal(result.exit_code, 3)
    t.same([result.stdout, result.stderr], ['out\n', 'err\n'])
  })

  await t.test('a hostile config path reaches the remote command intact and runs nothing', async (t) => {
    const marker = path.join(sshd.dir, 'pwned')
    const configPath = `x'; touch ${marker}; ' $(touch ${marker}2) \`touch ${marker}3\``
    const result = await runSshCommand({ ...base, command: startCommand({ nodeBinary: '/bin/echo', configPath }) })
    t.equal(result.stdout, `-conf=${configPath} -daemon\n`)
    for (const suffix of ['', '2', '3']) t.notOk(existsSync(marker + suffix), `no ${marker}${suffix}`)
  })

  await t.test('the expected fingerprint is enforced', async (t) => {
    const ok = await runSshCommand({ ...base, command: 'true', expectedFingerprint: sshd.hostFingerprint })
    t.equal(ok.exit_code, 0)
    const wrong = `SHA256:${'A'.repeat(43)}`
    const error = await runSshCommand({ ...base, command: 'touch never', expectedFingerprint: wrong }).catch((e) => e)
    t.type(error, SshError)
    t.equal(error.kind, 'host-key')
    t.equal(error.fingerprint, sshd.hostFingerprint, 'reports the key it was shown')
    t.match(error.message, wrong)
  })

  await t.test('an unauthorized key is refused', async (t) => {
    const stranger = await readFile(sshd.strangerKeyPath, 'utf8')
    const error = await runSshCommand({ ...base, privateKey: stranger, command: 'true' }).catch((e) => e)
    t.equal(error.kind, 'auth')
    t.match(error.message, `authentication as ${sshd.username} failed`)
  })

  await t.test('a hanging command times out with what it printed so far', async (t) => {
    const started = Date.now()
    const error = await runSshCommand({ ...base, command: 'echo started; sleep 20', timeoutMs: 1500 }).catch((e) => e)
    t.equal(error.kind, 'timeout')
    t.equal(error.result?.stdout, 'started\n')
    t.ok(Date.now() - started < 5000, 'gave up near the budget')
  })

  await t.test('output beyond the cap is cut with a marker', async (t) => {
    const result = await runSshCommand({ ...base, command: "head -c 100000 /dev/zero | tr '\\0' a", maxOutputBytes: 1000 })
    t.equal(result.stdout, `${'a'.repeat(1000)}\n[output truncated]`)
  })
})

test('unreachable and silent servers', async (t) => {
  const port = await freePort()
  const refused = await runSshCommand({
    host: '127.0.0.1',
    port,
    username: 'x',
    password: 'y',
    command: 'true',
    timeoutMs: 5000,
  }).catch((e) => e)
  t.equal(refused.kind, 'unreachable')
  t.match(refused.message, 'ECONNREFUSED')

  // Accepts TCP but never speaks SSH: only the timeout can end it.
  const silent = createServer(() => {})
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
  t.teardown(() => silent.close())
  const { port: silentPort } = silent.address() as { port: number }
  const hung = await runSshCommand({
    host: '127.0.0.1',
    port: silentPort,
    username: 'x',
    password: 'y',
    command: 'true',
    timeoutMs: 800,
  }).catch((e) => e)
  t.equal(hung.kind, 'timeout')
})

test('password authentication (ssh2 server)', async (t) => {
  const server = await startPasswordSshServer()
  t.teardown(() => server.close())
  const target = { host: '127.0.0.1', port: server.port, username: server.username, timeoutMs: 10_000 }
  const ok = await runSshCommand({ ...target, password: server.password, command: 'echo via password' })
  t.equal(ok.stdout, 'via password\n')
  t.equal(ok.fingerprint, server.hostFingerprint)
  const bad = await runSshCommand({ ...target, password: 'wrong', command: 'echo never' }).catch((e) => e)
  t.equal(bad.kind, 'auth')
  t.notMatch(bad.message, 'wrong', 'the password is not echoed')
  t.same(server.commands, ['echo via password'])
})

test('keyProblem explains unusable keys before any connection', async (t) => {
  t.match(keyProblem('not a key'), /Unsupported key format|parse/i)
  t.equal(keyProblem('-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n') === null, false)
})

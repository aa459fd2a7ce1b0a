import { existsSync } from 'node:fs'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createNodeHost, NODE_BINARY } from '@app/node-simulator'
import { freePort } from '@app/testing'
import { sshdUnavailable, startPasswordSshServer, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { actionsApp, nodeSettingsFor } from './helper.ts'

const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP real-sshd action tests: ${unavailable}`)

test('start over a real sshd', { skip: unavailable ?? false }, async (t) => {
  const sshd = await startSshd()
  t.teardown(() => sshd.stop())

  await t.test('400 names each missing setting, before any connection', async (t) => {
    const { post, configure } = await actionsApp(t)
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    const complete = nodeSettingsFor(sshd, host)
    const cases: [Record<string, string>, string][] = [
      [{ ssh_host: '' }, 'ssh_host'],
      [{ ssh_username: '' }, 'ssh_username'],
      [{ ssh_key_path: '', ssh_password: '' }, 'ssh_password or ssh_key_path'],
      [{ config_path: '' }, 'config_path'],
    ]
    for (const [blank, name] of cases) {
      await configure({ ...complete, ...blank })
      for (const action of ['start', 'restart'] as const) {
        const res = await post(action)
        t.equal(res.statusCode, 400, `${action} without ${name}`)
        t.match(res.body.detail, name)
        t.same(Object.keys(res.body), ['detail'])
      }
    }
    await configure({ ...complete, rpc_url: '' })
    const noRpc = await post('restart')
    t.equal(noRpc.statusCode, 400, 'restart also needs rpc_url for its stop')
    t.match(noRpc.body.detail, 'rpc_url')
    await configure({ ...complete, ssh_key_path: path.join(host.dir, 'no-such-key') })
    const badKey = await post('start')
    t.equal(badKey.statusCode, 400)
    t.match(badKey.body.detail, /ssh_key_path: cannot read the private key file \(ENOENT\)/)
    await configure({ ...complete, ssh_key_path: host.confPath })
    await host.writeConf()
    t.match((await post('start')).body.detail, 'not a usable private key')
    t.notOk(host.isRunning(), 'nothing was started')
  })

  await t.test('start runs the node binary over SSH and records the host key (TOFU)', async (t) => {
    const { app, post, configure } = await actionsApp(t)
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf()
    await configure(nodeSettingsFor(sshd, host))
    const res = await post('start')
    t.equal(res.statusCode, 200, JSON.stringify(res.body))
    t.match(res.body, {
      action: 'start',
      ok: true,
      ssh: {
        command: `'${NODE_BINARY}' -conf='${host.confPath}' -daemon`,
        exit_code: 0,
        stdout: 'Bitcoin Core starting\n',
        stderr: '',
      },
    })
    t.type(res.body.ssh.duration_ms, 'number')
    await host.waitReady()
    t.equal((await app.settingsCache.get()).ssh_host_key_fingerprint, sshd.hostFingerprint, 'first key trusted and stored')
    const { rows } = await app.db.query<{ ssh_command: string; ssh_exit_code: number }>(
      'SELECT ssh_command, ssh_exit_code FROM node_actions',
    )
    t.same(rows, [{ ssh_command: res.body.ssh.command, ssh_exit_code: 0 }], 'audited with the command')

    const again = await post('start')
    t.equal(again.statusCode, 502, 'a second start fails: the node holds its lock')
    t.match(again.body, { ok: false, ssh: { exit_code: 1, stderr: /Cannot obtain a lock on directory/ } })
    t.match(again.body.detail, 'exited with code 1: Error: Cannot obtain a lock on directory')
  })

  await t.test('an encrypted key is opened with ssh_password as its passphrase', async (t) => {
    const { post, configure } = await actionsApp(t)
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf()
    const key = await sshd.addClientKey('locked_ed25519', 'key passphrase')
    await configure({ ...nodeSettingsFor(sshd, host), ssh_key_path: key, ssh_password: '' })
    const without = await post('start')
    t.equal(without.statusCode, 400)
    t.match(without.body.detail, /ssh_key_path: the file is not a usable private key \(.*passphrase/i)
    await configure({ ssh_password: 'key passphrase' })
    const res = await post('start')
    t.equal(res.statusCode, 200, JSON.stringify(res.body))
    t.notMatch(sshd.log(), /Failed password/, 'the passphrase was not tried as a password')
    await host.waitReady()
  })

  await t.test('a hostile config_path arrives intact and injects nothing', async (t) => {
    const { post, configure } = await actionsApp(t)
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    const marker = path.join(host.dir, 'pwned')
    // A real file whose directory names carry shell syntax: the node only starts if the path arrived verbatim.
    const hostile = path.join(host.dir, `x'; touch ${marker}; '`, '$(touch pwned2)', 'bitcoin.conf')
    await mkdir(path.dirname(hostile), { recursive: true })
    await host.writeConf(hostile)
    await configure({ ...nodeSettingsFor(sshd, host), config_path: hostile })
    const res = await post('start')
    t.equal(res.statusCode, 200, JSON.stringify(res.body))
    await host.waitReady()
    t.notOk(existsSync(marker), 'no file created by injection')
    t.notOk(existsSync(path.join(process.env.HOME ?? '/root', 'pwned2')), 'no command substitution ran')

    // The brief's example, a missing file: the node reports the exact path it was given.
    const unique = `/tmp/pwned-${process.pid}-${Date.now()}`
    await configure({ config_path: `x'; touch ${unique}; '` })
    const missing = await post('start')
    t.equal(missing.statusCode, 502)
    t.match(missing.body.ssh.stderr, `x'; touch ${unique}; '" could not be opened.`)
    t.notOk(existsSync(unique), `${unique} was not created`)
  })

  await t.test('a changed host key is refused until the fingerprint is cleared', async (t) => {
    const { app, post, configure } = await actionsApp(t)
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf()
    const old = sshd.hostFingerprint
    await configure({ ...nodeSettingsFor(sshd, host), ssh_host_key_fingerprint: old })
    const fresh = await sshd.rotateHostKey()
    t.not(fresh, old)
    const refused = await post('start')
    t.equal(refused.statusCode, 502)
    t.match(refused.body.detail, `expected ${old}, got ${fresh}`)
    t.match(refused.body.detail, 'clear ssh_host_key_fingerprint')
    t.notOk(host.isRunning(), 'the command never ran')
    t.equal((await app.settingsCache.get()).ssh_host_key_fingerprint, old, 'the stored key is kept')

    await configure({ ssh_host_key_fingerprint: '' })
    t.equal((await post('start')).statusCode, 200, 'accepted once cleared')
    t.equal((await app.settingsCache.get()).ssh_host_key_fingerprint, fresh, 'the new key is now trusted')
    await host.waitReady()
  })

  await t.test('502 for refused auth, unreachable host, timeout and non-zero exit', async (t) => {
    const { post, configure } = await actionsApp(t, { SSH_TIMEOUT_MS: '2000' })
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf()
    const base = nodeSettingsFor(sshd, host)

    await configure({ ...base, ssh_key_path: sshd.strangerKeyPath })
    const auth = await post('start')
    t.equal(auth.statusCode, 502)
    t.match(auth.body.detail, `authentication as ${sshd.username} failed`)
    t.match(auth.body, { action: 'start', ok: false })

    await configure({ ...base, ssh_port: await freePort() })
    const unreachable = await post('start')
    t.equal(unreachable.statusCode, 502)
    t.match(unreachable.body.detail, /unreachable \(ECONNREFUSED\)/)

    const hang = path.join(host.dir, 'hang.sh')
    await writeFile(hang, '#!/bin/sh\necho waiting\nsleep 8\n')
    await chmod(hang, 0o755)
    await configure({ ...base, node_binary: hang })
    const started = Date.now()
    const timeout = await post('start')
    t.equal(timeout.statusCode, 502)
    t.match(timeout.body.detail, 'did not finish within 2000 ms')
    t.match(timeout.body.ssh, { exit_code: null, stdout: 'waiting\n' }, 'what it printed so far')
    t.ok(Date.now() - started < 6000, 'gave up at the timeout')

    await configure({ ...base, config_path: path.join(host.dir, 'absent.conf') })
    const exit = await post('start')
    t.equal(exit.statusCode, 502)
    t.match(exit.body.ssh, { exit_code: 1, stdout: '', stderr: /Error reading configuration file/ })
  })
})

test('start with password authentication (ssh2 server)', async (t) => {
  const server = await startPasswordSshServer()
  t.teardown(() => server.close())
  const { app, post, configure } = await actionsApp(t)
  await configure({
    ssh_host: '127.0.0.1',
    ssh_port: server.port,
    ssh_username: server.username,
    ssh_password: server.password,
    ssh_key_path: '',
    config_path: '/etc/bitcoin/bitcoin.conf',
    node_binary: '/bin/echo',
  })
  const res = await post('start')
  t.equal(res.statusCode, 200, JSON.stringify(res.body))
  t.equal(res.body.ssh.stdout, '-conf=/etc/bitcoin/bitcoin.conf -daemon\n')
  t.same(server.commands, [`'/bin/echo' -conf='/etc/bitcoin/bitcoin.conf' -daemon`])
  t.equal((await app.settingsCache.get()).ssh_host_key_fingerprint, server.hostFingerprint)

  await configure({ ssh_password: 'wrong password' })
  await configure({ ssh_host_key_fingerprint: server.hostFingerprint })
  const refused = await post('start')
  t.equal(refused.statusCode, 502)
  t.match(refused.body.detail, 'authentication')
  t.notMatch(JSON.stringify(refused.body), 'wrong password', 'the password never appears')
})

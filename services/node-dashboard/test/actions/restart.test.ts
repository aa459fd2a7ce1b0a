import { createNodeHost, lockHolderOf, rpc } from '@app/node-simulator'
import { sshdUnavailable, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { actionsApp, nodeSettingsFor } from './helper.ts'

const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP real-sshd restart tests: ${unavailable}`)

test('restart end to end: stop, start, restart over a real sshd', { skip: unavailable ?? false }, async (t) => {
  const sshd = await startSshd()
  t.teardown(() => sshd.stop())

  await t.test('start, stop, then restart waits out the old process lock', async (t) => {
    const { app, post, configure } = await actionsApp(t)
    // v30 holds the lock ~1.5 s; 5 s keeps "the first start meets the lock" true however slow node boots here.
    const host = await createNodeHost({ lockHoldMs: 5000 })
    t.teardown(() => host.cleanup())
    await host.writeConf()
    await configure(nodeSettingsFor(sshd, host))

    t.equal((await post('start')).statusCode, 200, 'start')
    await host.waitReady()
    const firstPid = lockHolderOf(host)

    const stop = await post('stop')
    t.equal(stop.statusCode, 200, 'stop')
    t.equal(stop.body.rpc.result, 'Bitcoin Core stopping')
    await host.waitExited()

    t.equal((await post('start')).statusCode, 200, 'start again')
    await host.waitReady()
    const secondPid = lockHolderOf(host)
    t.not(secondPid, firstPid)

    const restart = await post('restart')
    t.equal(restart.statusCode, 200, JSON.stringify(restart.body))
    t.match(restart.body, {
      action: 'restart',
      ok: true,
      rpc: { method: 'stop', ok: true, result: 'Bitcoin Core stopping', node_was_running: true },
      ssh: { exit_code: 0, stdout: 'Bitcoin Core starting\n' },
    })
    t.ok(restart.body.ssh.attempts > 1, `the first start met the old lock (${restart.body.ssh.attempts} attempts)`)
    await host.waitReady()
    t.not(lockHolderOf(host), secondPid, 'a new node process runs')
    const { rows } = await app.db.query<{ action: string; ok: boolean }>('SELECT action, ok FROM node_actions ORDER BY id')
    t.same(
      rows.map((r) => `${r.action}:${r.ok}`),
      ['start:true', 'stop:true', 'start:true', 'restart:true'],
    )
  })

  await t.test('restart of a node that is already down just starts it', async (t) => {
    const { post, configure } = await actionsApp(t)
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf()
    await configure(nodeSettingsFor(sshd, host))
    const res = await post('restart')
    t.equal(res.statusCode, 200, JSON.stringify(res.body))
    t.match(res.body, { rpc: { ok: true, node_was_running: false, result: null }, ssh: { exit_code: 0, attempts: 1 } })
    await host.waitReady()
  })

  await t.test('restart gives up after RESTART_START_WAIT_MS when the lock is never freed', async (t) => {
    const { post, configure } = await actionsApp(t, { RESTART_START_WAIT_MS: '1500' })
    // The old node holds its lock for 20 s after stop: longer than the restart is willing to wait.
    const host = await createNodeHost({ lockHoldMs: 20_000 })
    t.teardown(() => host.cleanup())
    await host.writeConf()
    await configure(nodeSettingsFor(sshd, host))
    t.equal((await post('start')).statusCode, 200)
    await host.waitReady()
    const res = await post('restart')
    t.equal(res.statusCode, 502)
    t.match(res.body, { action: 'restart', ok: false, rpc: { ok: true }, ssh: { exit_code: 1 } })
    t.match(res.body.detail, /Cannot obtain a lock on directory .* attempts in 1500 ms/)
  })

  await t.test('restart is aborted, node untouched, when the RPC stop is refused', async (t) => {
    const { post, configure } = await actionsApp(t)
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf()
    await configure(nodeSettingsFor(sshd, host))
    t.equal((await post('start')).statusCode, 200)
    await host.waitReady()
    await configure({ rpc_password: 'wrong' })
    const res = await post('restart')
    t.equal(res.statusCode, 502)
    t.match(res.body.detail, /Restart aborted, the node was not stopped: .*authentication failed/i)
    t.notOk('ssh' in res.body, 'no start attempted')
    t.equal((await rpc(host.url, 'getblockcount')).json.result, 101, 'the node still runs')
  })
})

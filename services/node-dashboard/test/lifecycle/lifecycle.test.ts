import { mkdir, writeFile } from 'node:fs/promises'
import { createNodeHost, NODE_BINARY } from '@app/node-simulator'
import { sshdUnavailable, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { actionsApp, nodeSettingsFor } from '../actions/helper.ts'

const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP real-sshd lifecycle tests: ${unavailable}`)

test('the guided lifecycle over a real sshd', { skip: unavailable ?? false }, async (t) => {
  const sshd = await startSshd()
  t.teardown(() => sshd.stop())

  await t.test('start waits through the warm-up and records each phase; the state follows the node', async (t) => {
    const { app, cookie, post, configure } = await actionsApp(t, { START_WAIT_MS: '20000' })
    const host = await createNodeHost({ lockHoldMs: 300 })
    t.teardown(() => host.cleanup())
    await host.writeConf(undefined, 'simblockindexms=600\nsimverifyblocksms=400')
    await configure(nodeSettingsFor(sshd, host))
    const state = async () => (await app.inject({ method: 'GET', url: '/api/node/state', headers: { cookie } })).json()

    t.match(await state(), { state: 'unreachable', action: null }, 'nothing runs yet and no stop was asked for')
    const res = await post('start')
    t.equal(res.statusCode, 200, JSON.stringify(res.body))
    const phases = res.body.phases.map((p: { phase: string; message?: string }) => `${p.phase}:${p.message ?? ''}`)
    t.equal(phases[0], 'starting:Bitcoin Core starting')
    t.ok(phases.includes('warming_up:Loading block index…'), JSON.stringify(phases))
    t.match(phases.at(-1), /^running:101 blocks, verification progress 100\.00%/)
    t.match(res.body.ssh, { exit_code: 0 }, 'the payload keeps its shape')

    t.match(await state(), { state: 'running', blocks: 101, verification_progress: 1, message: null })
    t.equal((await post('stop')).statusCode, 200)
    t.match(await state(), { state: 'stopping' }, 'a closed port right after an accepted stop')
    const { rows } = await app.db.query<{ phases: unknown }>("SELECT phases FROM node_actions WHERE action = 'start'")
    t.same(rows[0].phases, res.body.phases, 'the phases are stored on the action row')
  })

  await t.test('restart: stopping, stopped, starting, running', async (t) => {
    const { post, configure } = await actionsApp(t, { START_WAIT_MS: '20000' })
    const host = await createNodeHost({ lockHoldMs: 800 })
    t.teardown(() => host.cleanup())
    await host.writeConf()
    await configure(nodeSettingsFor(sshd, host))
    t.equal((await host.start()).code, 0)
    await host.waitReady()
    const res = await post('restart')
    t.equal(res.statusCode, 200, JSON.stringify(res.body))
    const names = res.body.phases.map((p: { phase: string }) => p.phase)
    t.same(names.slice(0, 3), ['stopping', 'stopped', 'starting'])
    t.equal(names.at(-1), 'running')
    t.equal(res.body.phases[0].message, 'Bitcoin Core stopping')
  })

  await t.test('a start that dies in warm-up: 502 with the debug.log tail; -reindex only when confirmed, audited', async (t) => {
    const { app, cookie, post, configure } = await actionsApp(t, { START_WAIT_MS: '20000' })
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf(undefined, 'simfailms=600')
    await host.corruptBlockDatabase()
    await configure(nodeSettingsFor(sshd, host))

    const failed = await post('start')
    t.equal(failed.statusCode, 502, JSON.stringify(failed.body))
    t.match(failed.body.detail, 'stopped answering during its warm-up (last status: Loading block index…)')
    t.match(failed.body.detail, 'asks for a start with -reindex')
    t.same(
      failed.body.phases.map((p: { phase: string }) => p.phase),
      ['starting', 'warming_up', 'failed'],
    )
    t.equal(failed.body.debug_log.path, host.debugLogPath, 'the path from the config: datadir and the regtest dir')
    t.equal(failed.body.debug_log.reindex_suggested, true)
    t.equal(failed.body.debug_log.truncated, false)
    t.ok(failed.body.debug_log.lines.some((l: string) => l.endsWith('Error: Corrupted block database detected.')))
    t.ok(failed.body.debug_log.lines.includes('Please restart with -reindex or -reindex-chainstate to recover.'))
    const down = (await app.inject({ method: 'GET', url: '/api/node/state', headers: { cookie } })).json()
    t.match(down, { state: 'stopped', message: /^the last start failed: The node stopped answering/ })

    const reindex = (body: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: '/api/actions/start-reindex', headers: { cookie, ...headers }, payload: body as object })
    for (const body of [undefined, {}, { confirm: false }, { confirm: 'yes' }, { confirm: true, extra: 1 }]) {
      const refused = await reindex(body)
      t.equal(refused.statusCode, 422, `refused without confirm: true (${JSON.stringify(body)})`)
    }
    const crossSite = await reindex({ confirm: true }, { origin: 'https://evil.example' })
    t.equal(crossSite.statusCode, 403, 'CSRF-protected')
    t.notOk(host.isRunning())

    const started = await reindex({ confirm: true })
    t.equal(started.statusCode, 200, started.body)
    const body = started.json()
    t.equal(body.action, 'start-reindex')
    t.equal(body.ssh.command, `'${NODE_BINARY}' -conf='${host.confPath}' -daemon -reindex`)
    t.equal(body.phases.at(-1).phase, 'running')
    const audit = await app.db.query<{ name: string; ok: boolean; outcome: string }>(
      "SELECT name, ok, outcome FROM audit_log WHERE name = 'start-reindex' ORDER BY id",
    )
    t.same(
      audit.rows.map((r) => r.ok),
      [true],
      'the reindex start is audited (refused bodies never reached the action)',
    )
    t.match(audit.rows[0].outcome, 'started with -reindex')
  })

  await t.test('a start whose node never answers: 502 at the bound, the debug.log tail bounded and escaped', async (t) => {
    const { post, configure } = await actionsApp(t, { START_WAIT_MS: '1500' })
    const host = await createNodeHost()
    t.teardown(() => host.cleanup())
    await host.writeConf()
    // A "node" that exits 0 and never opens its RPC port, after writing a long debug.log with a terminal escape.
    const fake = `${host.dir}/fake-bitcoind.sh`
    await writeFile(fake, '#!/bin/sh\necho "Bitcoin Core starting"\n', { mode: 0o755 })
    const long = Array.from({ length: 5000 }, (_, i) => `2026-11-24T19:00:00Z line ${i} ${'x'.repeat(20)}`).join('\n')
    await mkdir(host.lockDir, { recursive: true })
    await writeFile(host.debugLogPath, `${long}\nlast \u001b[31mred\u001b[0m line\n`)
    await configure({ ...nodeSettingsFor(sshd, host), node_binary: fake })
    const res = await post('start')
    t.equal(res.statusCode, 502)
    t.match(res.body.detail, 'did not answer RPC within 1500 ms')
    t.equal(res.body.debug_log.lines.length, 200)
    t.equal(res.body.debug_log.truncated, true)
    t.equal(res.body.debug_log.lines.at(-1), 'last \\x1b[31mred\\x1b[0m line')
    t.equal(res.body.debug_log.reindex_suggested, false)
  })
})

import { test } from 'tap'
import { createActionsRepository } from '../../src/actions/repository.ts'
import { build } from '../helper.ts'

test('the action lock: one holder, released by finish, reclaimed after its lease', async (t) => {
  const app = await build(t)
  const repo = createActionsRepository(app.db)
  const first = await repo.begin('start', 'admin', 60_000)
  t.ok(first, 'taken')
  t.equal(await repo.begin('stop', 'admin', 60_000), null, 'held')
  t.match(await repo.running(), { action: 'start' })
  await repo.finish(first!.id, {
    ok: true,
    statusCode: 200,
    detail: 'started',
    ssh: { command: "'bitcoind' -conf='/x' -daemon", exit_code: 0, duration_ms: 12 },
  })
  t.equal(await repo.running(), null, 'released')

  const crashed = await repo.begin('restart', 'admin', 1)
  t.ok(crashed)
  await new Promise((r) => setTimeout(r, 30))
  const next = await repo.begin('stop', null, 60_000)
  t.ok(next, 'an expired lease no longer blocks')
  const rows = await repo.recent()
  t.match(
    rows.find((r) => r.id === crashed!.id),
    { ok: false, detail: /abandoned/ },
  )
  t.match(
    rows.find((r) => r.id === first!.id),
    { ssh_command: "'bitcoind' -conf='/x' -daemon", ssh_exit_code: 0, ok: true },
  )
})

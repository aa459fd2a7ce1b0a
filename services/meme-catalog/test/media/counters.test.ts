import { test } from 'tap'
import { createMediaCounters } from '../../src/media/counters.ts'
import type { CounterDelta } from '../../src/memes/repository.ts'

const log = { warn: () => {} }

test('hits are summed per meme and written in one batch', async (t) => {
  const writes: CounterDelta[][] = []
  const counters = createMediaCounters(async (d) => void writes.push(d), 3_600_000, log)
  t.teardown(() => counters.close())
  counters.hit('a', false)
  counters.hit('a', false)
  counters.hit('a', true)
  counters.hit('b', true)
  t.equal(writes.length, 0, 'nothing written per hit')
  await counters.flush()
  t.same(writes, [
    [
      { id: 'a', views: 2, downloads: 1 },
      { id: 'b', views: 0, downloads: 1 },
    ],
  ])
  await counters.flush()
  t.equal(writes.length, 1, 'an empty flush writes nothing')
})

test('a failed write keeps the counts for the next one, added to new hits', async (t) => {
  const writes: CounterDelta[][] = []
  let fail = true
  const counters = createMediaCounters(
    async (d) => {
      if (fail) throw new Error('database down')
      writes.push(d)
    },
    3_600_000,
    log,
  )
  counters.hit('a', false)
  await counters.flush()
  t.equal(counters.pendingCount, 1, 'kept')
  counters.hit('a', false)
  counters.hit('a', true)
  fail = false
  await counters.close()
  t.same(writes, [[{ id: 'a', views: 2, downloads: 1 }]], 'written on close, nothing lost or doubled')
})

test('flushes do not overlap', async (t) => {
  let running = 0
  let overlapped = false
  const counters = createMediaCounters(
    async () => {
      running++
      if (running > 1) overlapped = true
      await new Promise((r) => setTimeout(r, 20))
      running--
    },
    3_600_000,
    log,
  )
  t.teardown(() => counters.close())
  counters.hit('a', false)
  const first = counters.flush()
  counters.hit('b', false)
  await Promise.all([first, counters.flush()])
  t.notOk(overlapped)
  t.equal(counters.pendingCount, 0)
})

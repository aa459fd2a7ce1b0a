import { test } from 'tap'
import { eventually } from '../src/eventually.ts'

test('eventually resolves with the first truthy value the check returns', async (t) => {
  let calls = 0
  const value = await eventually(() => (++calls < 3 ? null : { calls }), { intervalMs: 1 })
  t.same(value, { calls: 3 })
})

test('eventually treats a throwing check as "not yet"', async (t) => {
  let calls = 0
  const value = await eventually(
    async () => {
      if (++calls < 3) throw new Error('not ready')
      return 'ready'
    },
    { intervalMs: 1 },
  )
  t.equal(value, 'ready')
})

test('eventually throws on timeout, naming what was awaited', async (t) => {
  const started = Date.now()
  await t.rejects(
    eventually(() => false, { what: 'the read model', timeoutMs: 100, intervalMs: 10 }),
    {
      message: 'not met within 100 ms: the read model',
    },
  )
  t.ok(Date.now() - started >= 100, 'it waited the whole timeout first')
})

// The check's source as the runtime prints it (tsx may strip its whitespace).
test('without a description the timeout error quotes the check and its last error', async (t) => {
  const memes: string[] = []
  await t.rejects(
    eventually(() => memes.length === 2, { timeoutMs: 20, intervalMs: 5 }),
    {
      message: /^not met within 20 ms: \(\)\s*=>\s*memes\.length\s*===\s*2$/,
    },
  )
  await t.rejects(
    eventually(
      () => {
        throw new Error('connection refused')
      },
      { timeoutMs: 20, intervalMs: 5 },
    ),
    { message: /^not met within 20 ms: .*connection refused.*; last error: connection refused$/ },
  )
})

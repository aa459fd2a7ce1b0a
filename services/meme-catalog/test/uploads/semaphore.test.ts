import { test } from 'tap'
import { createSemaphore, SemaphoreFullError } from '../../src/uploads/semaphore.ts'

function deferred() {
  let release = () => {}
  const done = new Promise<void>((resolve) => {
    release = resolve
  })
  return { done, release }
}

test('two slots, one waiting place: the next task is refused at once, the waiting one runs when a slot frees', async (t) => {
  const semaphore = createSemaphore(2, 1)
  const started: string[] = []
  const task = (name: string, until: Promise<void>) =>
    semaphore.run(async () => {
      started.push(name)
      await until
      return name
    })
  const a = deferred()
  const b = deferred()
  const c = deferred()
  const runs = [task('a', a.done), task('b', b.done), task('c', c.done)]
  await Promise.resolve()
  t.same(started, ['a', 'b'])
  t.same(semaphore.load, { running: 2, waiting: 1 })
  await t.rejects(task('d', Promise.resolve()), SemaphoreFullError, 'the line is full')
  t.same(started, ['a', 'b'], 'the refused task never ran')

  a.release()
  t.equal(await runs[0], 'a')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, ['a', 'b', 'c'], 'the waiting task took the freed slot')
  t.same(semaphore.load, { running: 2, waiting: 0 })
  const e = task('e', Promise.resolve())
  t.same(semaphore.load, { running: 2, waiting: 1 }, 'the waiting place is free again')
  b.release()
  c.release()
  t.same(await Promise.all([...runs, e]), ['a', 'b', 'c', 'e'])
  t.same(semaphore.load, { running: 0, waiting: 0 })
})

test('a failing task frees its slot', async (t) => {
  const semaphore = createSemaphore(1, 0)
  await t.rejects(
    semaphore.run(async () => {
      throw new Error('boom')
    }),
    /boom/,
  )
  t.equal(await semaphore.run(async () => 'next'), 'next')
})

test('without a bound every task waits its turn', async (t) => {
  const semaphore = createSemaphore(1)
  const order: number[] = []
  await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      semaphore.run(async () => {
        order.push(i)
      }),
    ),
  )
  t.same(
    order,
    Array.from({ length: 50 }, (_, i) => i),
  )
})

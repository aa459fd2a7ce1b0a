import { test } from 'tap'
import { createRandom } from '../../bench/corpus.ts'
import { SlotTable } from '../../src/search/slots.ts'

test('the slot table agrees with a Map under random sets and deletes, through growth and probe runs', async (t) => {
  const random = createRandom(3)
  const ids: (string | undefined)[] = []
  const table = new SlotTable((slot) => ids[slot])
  const expected = new Map<string, number>()
  const free: number[] = []
  // Few distinct ids, many operations: long probe runs, deletions inside them, ids coming back in other slots.
  const pool = Array.from({ length: 3000 }, (_, i) => `meme-${i % 7}-${Math.floor(i / 7)}`)
  let mismatches = 0
  for (let step = 0; step < 60_000; step++) {
    const id = pool[Math.floor(random() * pool.length)]
    const slot = expected.get(id)
    if (slot === undefined && random() < 0.6) {
      const at = free.length > 0 ? (free.pop() as number) : ids.length
      ids[at] = id
      table.set(id, at)
      expected.set(id, at)
    } else if (slot !== undefined && random() < 0.5) {
      table.delete(id)
      ids[slot] = undefined
      free.push(slot)
      expected.delete(id)
    }
    // A load reserving room rehashes the live entries (and the deleted runs) in the middle of it all.
    if (step === 30_000) table.reserve(table.size + 5000)
    if (table.get(id) !== (expected.get(id) ?? -1)) mismatches++
    if (step % 5000 === 0) for (const other of pool) if (table.get(other) !== (expected.get(other) ?? -1)) mismatches++
  }
  t.equal(mismatches, 0, 'every lookup as the Map says')
  t.equal(table.size, expected.size)
  for (const id of [...expected.keys()]) table.delete(id)
  t.equal(table.size, 0)
  t.equal(table.get(pool[0]), -1)
})

import { test } from 'tap'
import { createRefusalMemory } from '../../src/uploads/refusals.ts'

test('refused hashes: recalled with their message, count-capped, the least recently seen forgotten first', async (t) => {
  const memory = createRefusalMemory(3)
  memory.remember('a', 'refused a')
  memory.remember('b', 'refused b')
  memory.remember('c', 'refused c')
  t.equal(memory.recall('a'), 'refused a', 'recalling a makes it the most recently seen')
  memory.remember('d', 'refused d')
  t.equal(memory.size, 3, 'never more than the cap')
  t.equal(memory.recall('b'), undefined, 'b was the least recently seen')
  t.same(
    ['a', 'c', 'd'].map((id) => memory.recall(id)),
    ['refused a', 'refused c', 'refused d'],
  )
  memory.remember('c', 'refused c again')
  t.equal(memory.size, 3, 'remembering a known hash adds nothing')
  t.equal(memory.recall('c'), 'refused c again')
  t.equal(memory.recall('unknown'), undefined)
})

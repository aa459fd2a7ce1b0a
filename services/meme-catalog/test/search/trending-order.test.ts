import { test } from 'tap'
import { createSearchIndex } from '../../src/search/engine.ts'
import { type Columns, ListingOrder, TRENDING_FIRST, trendingFirst } from '../../src/search/order.ts'

test('the trending listing is merged once per change, not sorted per read', async (t) => {
  const size = 2000
  const columns: Columns = {
    ids: Array.from({ length: size }, (_, i) => `m${String(i).padStart(5, '0')}`),
    createdAt: Float64Array.from({ length: size }, (_, i) => i),
    trending: new Float64Array(size).fill(Number.NEGATIVE_INFINITY),
  }
  let comparisons = 0
  const order = new ListingOrder(columns, {
    listsAfter: (c, a, b) => {
      comparisons++
      return trendingFirst(c, a, b)
    },
    keys: TRENDING_FIRST.keys,
  })
  order.grow(size)
  for (let slot = 0; slot < size; slot++) order.added(slot)
  t.same(order.page(0, 3), [1999, 1998, 1997], 'nothing viewed: newest first')

  for (const slot of [10, 20, 30]) {
    order.removed(slot)
    columns.trending[slot] = 100 + slot
    order.added(slot)
  }
  t.same(order.page(0, 4), [30, 20, 10, 1999], 'scored memes first, highest first')
  comparisons = 0
  for (let page = 0; page < 50; page++) order.page(page * 24, 24)
  t.equal(comparisons, 0, 'reads after the merge compare nothing')
  t.equal(order.count(), size)
})

test('the index lists by trending score, filtered by tags through their bitsets, and removals leave it', async (t) => {
  const index = createSearchIndex()
  for (let i = 0; i < 50; i++) index.upsert({ id: `m${i}`, caption: 'x', tags: i % 2 ? ['odd'] : ['even'], createdAt: i })
  index.setTrending('m3', 5)
  index.setTrending('m4', 7)
  index.setTrending('m5', 6)
  t.same(index.search({ order: 'trending', offset: 0, limit: 4 }).ids, ['m4', 'm5', 'm3', 'm49'])
  t.same(index.search({ order: 'trending', tags: ['odd'], offset: 0, limit: 3 }), { total: 25, ids: ['m5', 'm3', 'm49'] })
  index.remove('m4')
  t.same(index.search({ order: 'trending', offset: 0, limit: 2 }), { total: 49, ids: ['m5', 'm3'] })
  index.upsert({ id: 'm5', caption: 'edited', tags: ['odd'], createdAt: 5, trending: 6 })
  t.same(index.search({ order: 'trending', offset: 0, limit: 1 }).ids, ['m5'], 'an edit keeps the score it is given')
  t.throws(() => index.search({ q: 'x', order: 'trending', offset: 0, limit: 1 }))
})

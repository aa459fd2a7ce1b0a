import { test } from 'tap'
import { type Columns, ListingOrder, NEWEST_FIRST, newestFirst, TRENDING_FIRST, trendingFirst } from '../../src/search/order.ts'
import { sortSlots } from '../../src/search/sort-slots.ts'

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number) {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Columns with many ties: few distinct times and scores, never-viewed memes, and both zeros. */
function columnsOf(size: number, seed: number): Columns {
  const next = random(seed)
  const scores = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, 1.5, 3, 7.25]
  return {
    ids: Array.from({ length: size }, () =>
      Math.floor(next() * 1e12)
        .toString(16)
        .padStart(12, '0'),
    ),
    createdAt: Float64Array.from({ length: size }, () => 1_700_000_000_000 + Math.floor(next() * 40) * 1000),
    trending: Float64Array.from({ length: size }, () => scores[Math.floor(next() * scores.length)] as number),
  }
}

test('sortSlots gives the comparator order of both listings, ties and all', async (t) => {
  for (const [size, seed] of [
    [0, 1],
    [1, 2],
    [50, 3],
    [257, 4],
    [5000, 5],
    [40_000, 6],
  ] as const) {
    const columns = columnsOf(size, seed)
    const shuffled = Int32Array.from({ length: size }, (_, i) => i).sort((a, b) =>
      (columns.ids[a] as string).localeCompare(columns.ids[b] as string),
    )
    for (const [name, listing, listsAfter] of [
      ['newest', NEWEST_FIRST, newestFirst],
      ['trending', TRENDING_FIRST, trendingFirst],
    ] as const) {
      const reference = Array.from(shuffled).sort((a, b) => (listsAfter(columns, a, b) ? -1 : 1))
      const slots = shuffled.slice()
      sortSlots(slots, listing.keys(columns), columns.ids)
      t.same(Array.from(slots), reference, `${name}, ${size} slots`)
    }
  }
})

test('a listing merging a large batch of arrivals out of order reads as the comparator order', async (t) => {
  const size = 30_000
  const columns = columnsOf(size, 9)
  for (const listing of [NEWEST_FIRST, TRENDING_FIRST]) {
    const order = new ListingOrder(columns, listing)
    order.grow(size)
    // Half first and read (a merge into an empty listing), then the rest merged into the listed half.
    for (let slot = 0; slot < size; slot += 2) order.added(slot)
    t.equal(order.count(), size / 2)
    for (let slot = 1; slot < size; slot += 2) order.added(slot)
    const expected = Array.from({ length: size }, (_, i) => i).sort((a, b) => (listing.listsAfter(columns, a, b) ? 1 : -1))
    t.same(order.page(0, size), expected)
  }
})

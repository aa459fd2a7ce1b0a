import { test } from 'tap'
import { MAX_SEARCH_DISTANCE, PerceptualHashIndex, popcount32 } from '../../src/similar/hash-index.ts'

/** A deterministic generator (mulberry32): the same hashes every run. */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const hex32 = (n: number) => (n >>> 0).toString(16).padStart(8, '0')

/** `base` with `bits` distinct random bits flipped. */
function flip(base: string, bits: number, next: () => number): string {
  let hi = Number.parseInt(base.slice(0, 8), 16)
  let lo = Number.parseInt(base.slice(8), 16)
  const chosen = new Set<number>()
  while (chosen.size < bits) chosen.add(Math.floor(next() * 64))
  for (const bit of chosen) {
    if (bit < 32) hi ^= 1 << bit
    else lo ^= 1 << (bit - 32)
  }
  return hex32(hi) + hex32(lo)
}

const sorted = (matches: { id: string; distance: number }[]) =>
  [...matches].sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1))

test('popcount32 counts bits of any 32-bit value', async (t) => {
  t.equal(popcount32(0), 0)
  t.equal(popcount32(0xffffffff), 32)
  t.equal(popcount32(0x80000001), 2)
  t.equal(popcount32(0x0f0f0f0f), 16)
})

test('lookups equal a brute-force scan at every radius, through inserts, replacements and removals', async (t) => {
  const next = random(17)
  const index = new PerceptualHashIndex()
  const hashes = new Map<string, string>()
  const centres: string[] = []
  // Clusters of near hashes (as copies of one picture give) among uniformly random ones.
  for (let c = 0; c < 40; c++) centres.push(hex32(next() * 2 ** 32) + hex32(next() * 2 ** 32))
  for (let n = 0; n < 3000; n++) {
    const hash =
      n % 3 === 0
        ? hex32(next() * 2 ** 32) + hex32(next() * 2 ** 32)
        : flip(centres[n % centres.length], Math.floor(next() * 14), next)
    hashes.set(`m${n}`, hash)
    index.set(`m${n}`, hash)
  }
  // Replace some, remove others: the index must forget their old hashes.
  for (let n = 0; n < 3000; n += 7) {
    const hash = flip(centres[(n * 3) % centres.length], Math.floor(next() * 10), next)
    hashes.set(`m${n}`, hash)
    index.set(`m${n}`, hash)
  }
  for (let n = 1; n < 3000; n += 11) {
    hashes.delete(`m${n}`)
    index.remove(`m${n}`)
  }
  t.equal(index.size, hashes.size)

  const reference = (query: string, radius: number) => {
    const out: { id: string; distance: number }[] = []
    for (const [id, hash] of hashes) {
      let d = 0
      for (let i = 0; i < 16; i++) d += popcount32(Number.parseInt(hash[i], 16) ^ Number.parseInt(query[i], 16))
      if (d <= radius) out.push({ id, distance: d })
    }
    return sorted(out)
  }
  let compared = 0
  let found = 0
  for (let q = 0; q < 60; q++) {
    const query = q % 2 === 0 ? flip(centres[q % centres.length], q % 9, next) : hex32(next() * 2 ** 32) + hex32(next() * 2 ** 32)
    for (let radius = 0; radius <= MAX_SEARCH_DISTANCE; radius++) {
      const expected = reference(query, radius)
      const got = sorted(index.within(query, radius))
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        t.same(got, expected, `query ${query} radius ${radius}`)
        return
      }
      t.same(sorted(index.scan(query, radius)), expected)
      compared++
      found += expected.length
    }
  }
  t.ok(found > 1000, `the queries found something to compare (${found} matches over ${compared} lookups)`)
})

test('a malformed hash is not indexed, and a malformed query or radius is refused', async (t) => {
  const index = new PerceptualHashIndex()
  index.set('a', '0123456789abcdef')
  index.set('b', 'not a hash')
  index.set('c', null)
  t.equal(index.size, 1)
  index.set('a', null)
  t.equal(index.size, 0, 'a null hash removes the meme')
  t.throws(() => index.within('xyz', 2))
  t.throws(() => index.within('0123456789abcdef', MAX_SEARCH_DISTANCE + 1), RangeError)
  t.throws(() => index.within('0123456789abcdef', -1), RangeError)
  t.same(index.within('0123456789abcdef', 3), [])
})

/**
 * Multi-index hashing over 64-bit perceptual hashes: each hash is cut into five chunks (13, 13, 13, 13 and 12 bits),
 * each chunk a key of its own table. Two hashes at most `r` bits apart agree within floor(r/5) bits on at least one
 * chunk (pigeonhole), so a lookup probes, per chunk, the keys that close to the query's and checks only the hashes
 * found there. At radius 8 that is 5 x 14 probes, against one comparison per meme for a scan. Five chunks rather
 * than four: each probe is a cache miss, and at 100,000 memes the probes, not the candidates, were the cost.
 */

/** Largest radius a lookup accepts: floor(12/5) = 2 bits per chunk, 92 probes per chunk. */
export const MAX_SEARCH_DISTANCE = 12
const CHUNK_BITS = [13, 13, 13, 13, 12]
const CHUNKS = CHUNK_BITS.length

export interface HashMatch {
  id: string
  distance: number
}

/** Bits set in a 32-bit integer. */
export function popcount32(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555)
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

/** A dHash as its two 32-bit halves, or null when it is not 16 hex digits. */
export function splitHash(hex: string): [number, number] | null {
  if (!/^[0-9a-f]{16}$/.test(hex)) return null
  return [Number.parseInt(hex.slice(0, 8), 16) >>> 0, Number.parseInt(hex.slice(8), 16) >>> 0]
}

/** For chunk width 12 and 13 and per-chunk radius 0..2: every mask of that many bits or fewer, computed once. */
const MASKS = new Map<number, Uint16Array[]>(
  [12, 13].map((bits) => [
    bits,
    [0, 1, 2].map((radius) => {
      const masks: number[] = []
      for (let mask = 0; mask < 1 << bits; mask++) if (popcount32(mask) <= radius) masks.push(mask)
      return Uint16Array.from(masks)
    }),
  ]),
)

/** The five chunk values of a hash given as its halves (high bits first). */
function chunksOf(hi: number, lo: number, out: number[]): number[] {
  let value = (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0)
  for (let chunk = CHUNKS - 1; chunk >= 0; chunk--) {
    const bits = BigInt(CHUNK_BITS[chunk])
    out[chunk] = Number(value & ((1n << bits) - 1n))
    value >>= bits
  }
  return out
}

/** Perceptual hashes of public memes by id, answering "which are within r bits of this one". */
export class PerceptualHashIndex {
  private slotOf = new Map<string, number>()
  private ids: (string | undefined)[] = []
  private hi = new Uint32Array(1024)
  private lo = new Uint32Array(1024)
  // Last lookup that saw each slot: one candidate is checked once however many chunks find it.
  private seenBy = new Uint32Array(1024)
  private lookup = 0
  private free: number[] = []
  // Per chunk value, a bucket: [count, then slot, hi, lo per entry] in one Int32Array, so a probe reads its
  // candidates' hashes in sequence instead of chasing each slot (what made a lookup slower than a scan).
  // Filled with null up front: a packed array stays in fast elements, where a sparse one may turn into a dictionary.
  private tables: (Int32Array | null)[][] = CHUNK_BITS.map((bits) => Array.from({ length: 1 << bits }, () => null))
  private chunks: number[] = new Array(CHUNKS).fill(0)

  get size(): number {
    return this.slotOf.size
  }

  /** Sets the meme's hash (replacing an older one); a null or malformed hash removes it. */
  set(id: string, hash: string | null | undefined): void {
    const halves = hash ? splitHash(hash) : null
    const existing = this.slotOf.get(id)
    if (existing !== undefined) {
      if (halves && this.hi[existing] === halves[0] && this.lo[existing] === halves[1]) return
      this.remove(id)
    }
    if (!halves) return
    const slot = this.free.pop() ?? this.ids.length
    if (slot === this.ids.length) this.ids.push(undefined)
    this.grow(slot + 1)
    this.ids[slot] = id
    this.hi[slot] = halves[0]
    this.lo[slot] = halves[1]
    this.slotOf.set(id, slot)
    chunksOf(halves[0], halves[1], this.chunks)
    for (let chunk = 0; chunk < CHUNKS; chunk++) {
      const key = this.chunks[chunk]
      const table = this.tables[chunk]
      let bucket = table[key]
      if (!bucket || bucket.length < 1 + (bucket[0] + 1) * 3) {
        const grown = new Int32Array(bucket ? bucket.length * 2 - 1 : 7)
        if (bucket) grown.set(bucket)
        table[key] = bucket = grown
      }
      const at = 1 + bucket[0] * 3
      bucket[at] = slot
      bucket[at + 1] = halves[0] | 0
      bucket[at + 2] = halves[1] | 0
      bucket[0]++
    }
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    chunksOf(this.hi[slot], this.lo[slot], this.chunks)
    for (let chunk = 0; chunk < CHUNKS; chunk++) {
      const key = this.chunks[chunk]
      const table = this.tables[chunk]
      const bucket = table[key] as Int32Array
      const last = 1 + (bucket[0] - 1) * 3
      let at = 1
      while (bucket[at] !== slot) at += 3
      bucket.copyWithin(at, last, last + 3)
      if (--bucket[0] === 0) table[key] = null
    }
    this.slotOf.delete(id)
    this.ids[slot] = undefined
    this.free.push(slot)
  }

  /** Every hash within `maxDistance` bits of `hash` (0..MAX_SEARCH_DISTANCE), in no particular order. */
  within(hash: string, maxDistance: number): HashMatch[] {
    const halves = splitHash(hash)
    if (!halves) throw new Error('a perceptual hash is 16 hex digits')
    if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > MAX_SEARCH_DISTANCE) {
      throw new RangeError(`maxDistance must be an integer 0..${MAX_SEARCH_DISTANCE}`)
    }
    const hi = halves[0] | 0
    const lo = halves[1] | 0
    this.lookup = (this.lookup + 1) >>> 0
    if (this.lookup === 0) {
      this.seenBy.fill(0)
      this.lookup = 1
    }
    const perChunk = Math.floor(maxDistance / CHUNKS)
    const matches: HashMatch[] = []
    chunksOf(hi, lo, this.chunks)
    for (let chunk = 0; chunk < CHUNKS; chunk++) {
      const table = this.tables[chunk]
      const value = this.chunks[chunk]
      const masks = (MASKS.get(CHUNK_BITS[chunk]) as Uint16Array[])[perChunk]
      for (let m = 0; m < masks.length; m++) {
        const bucket = table[value ^ masks[m]]
        if (bucket === null) continue
        const end = 1 + bucket[0] * 3
        for (let at = 1; at < end; at += 3) {
          const distance = popcount32(bucket[at + 1] ^ hi) + popcount32(bucket[at + 2] ^ lo)
          if (distance > maxDistance) continue
          // Only a match can be found through several chunks: the dedupe touches matches alone.
          const slot = bucket[at]
          if (this.seenBy[slot] === this.lookup) continue
          this.seenBy[slot] = this.lookup
          matches.push({ id: this.ids[slot] as string, distance })
        }
      }
    }
    return matches
  }

  /** The reference answer: every hash compared (tests and the benchmark's baseline). */
  scan(hash: string, maxDistance: number): HashMatch[] {
    const [hi, lo] = splitHash(hash) ?? [0, 0]
    const matches: HashMatch[] = []
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot]
      if (id === undefined) continue
      const distance = popcount32(this.hi[slot] ^ hi) + popcount32(this.lo[slot] ^ lo)
      if (distance <= maxDistance) matches.push({ id, distance })
    }
    return matches
  }

  private grow(needed: number): void {
    if (needed <= this.hi.length) return
    const length = Math.max(needed, this.hi.length * 2)
    for (const name of ['hi', 'lo', 'seenBy'] as const) {
      const next = new Uint32Array(length)
      next.set(this[name])
      this[name] = next
    }
  }
}

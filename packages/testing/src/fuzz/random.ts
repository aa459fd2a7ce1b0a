/** A small seeded PRNG (mulberry32): the same seed yields the same fuzz run on every machine. */
export class Random {
  private state: number

  constructor(readonly seed: number) {
    this.state = seed >>> 0
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** A string of length characters drawn from alphabet. */
  string(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let out = ''
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)]
    return out
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length)
    for (let i = 0; i < length; i++) out[i] = Math.floor(this.next() * 256)
    return out
  }
}

/** FUZZ_SEED from the environment, else a fixed default so the normal test run is repeatable. */
export function fuzzSeed(defaultSeed = 20261121): number {
  const raw = process.env.FUZZ_SEED
  const parsed = raw === undefined ? Number.NaN : Number.parseInt(raw, 10)
  return Number.isFinite(parsed) ? parsed : defaultSeed
}

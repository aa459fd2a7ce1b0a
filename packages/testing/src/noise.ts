/** `length` bytes of seeded noise (a linear congruential generator): the same bytes for the same seed, every run. */
export function seededNoise(length: number, seed = 12345): Buffer {
  const noise = Buffer.alloc(length)
  let state = seed
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    noise[i] = state >> 23
  }
  return noise
}

import type { Scratch } from './intersect.ts'

/** Per-slot buffers sized to capacity; candidate buffers to the most candidates the full scoring may see. */
export function createScratch(capacity: number, candidates: number): Scratch {
  let epoch = 0
  const positions = Math.max(64, Math.min(capacity, candidates))
  const scratch: Scratch = {
    mark: new Int32Array(capacity),
    best: new Float64Array(capacity),
    cand: new Int32Array(positions),
    scores: new Float64Array(positions),
    wordScores: new Float64Array(positions),
    matches: new Int32Array(Math.ceil(capacity / 32)),
    union: new Int32Array(Math.ceil(capacity / 32)),
    nextEpoch() {
      // Marks compare against the current epoch; wrap around before it overflows.
      if (epoch >= 0x7ffffff0) {
        scratch.mark.fill(0)
        epoch = 0
      }
      return ++epoch
    },
  }
  return scratch
}

/** How many refused files are remembered: 10,000 hashes and messages take about 3 MB. */
export const REMEMBERED_REFUSALS = 10_000

/**
 * The sha256 of files refused by the image checks or the decoder, with the message they got, so
 * the same bytes sent again are refused before any work. Count-capped; the least recently seen go first.
 */
export function createRefusalMemory(capacity = REMEMBERED_REFUSALS) {
  const refused = new Map<string, string>()
  return {
    /** The message these bytes were refused with, if remembered. */
    recall(sha256: string): string | undefined {
      const message = refused.get(sha256)
      if (message === undefined) return undefined
      // Map order is insertion order: re-inserting marks it recently seen.
      refused.delete(sha256)
      refused.set(sha256, message)
      return message
    },
    remember(sha256: string, message: string): void {
      refused.delete(sha256)
      refused.set(sha256, message)
      if (refused.size > capacity) refused.delete(refused.keys().next().value as string)
    },
    get size() {
      return refused.size
    },
  }
}

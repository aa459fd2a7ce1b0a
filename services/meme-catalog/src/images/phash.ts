/**
 * dHash: for each of 8 rows of a 9x8 greyscale thumbnail, one bit per adjacent pair
 * (left brighter than right). Robust to scaling, re-encoding and small edits.
 */
export function dHash(grey9x8: Uint8Array): string {
  if (grey9x8.length < 72) throw new Error('dHash needs 9x8 single-channel pixels')
  let hex = ''
  for (let row = 0; row < 8; row++) {
    let byte = 0
    for (let col = 0; col < 8; col++) {
      const left = grey9x8[row * 9 + col]
      const right = grey9x8[row * 9 + col + 1]
      byte = (byte << 1) | (left > right ? 1 : 0)
    }
    hex += byte.toString(16).padStart(2, '0')
  }
  return hex
}

/** Number of differing bits between two 16-hex-character hashes. */
export function hammingDistance(a: string, b: string): number {
  let diff = BigInt(`0x${a}`) ^ BigInt(`0x${b}`)
  let count = 0
  while (diff > 0n) {
    count += Number(diff & 1n)
    diff >>= 1n
  }
  return count
}

/** Hashes at most this many bits apart are flagged as near-duplicates (about 90% of bits equal). */
export const NEAR_DUPLICATE_DISTANCE = 6

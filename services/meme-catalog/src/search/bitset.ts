import type { Operand } from './intersect.ts'
import { popcount } from './postings.ts'

/**
 * Exact match counting for queries whose every operand is large: the AND of the operands' unions as one bitset
 * (32 slots a word), then a popcount. A list holding at least one slot in 32 keeps its own bitset (ORed a word
 * at a time); smaller lists set their bits one by one. The cost is bounded by operands * capacity / 32 word
 * operations plus the smaller lists' lengths, whatever the number of matches.
 */
export function matchBits(operands: Operand[], matches: Int32Array, union: Int32Array): number {
  const words = matches.length
  for (let o = 0; o < operands.length; o++) {
    const operand = operands[o]
    const single = operand.lists.length === 1 ? denseBits(operand.lists[0], words) : null
    // A dense single list is its own union: no copy.
    const bits = single ?? unionOf(operand, union)
    const end = Math.min(words, bits.length)
    if (o === 0) matches.set(bits.subarray(0, end))
    else if (o < operands.length - 1) for (let w = 0; w < end; w++) matches[w] &= bits[w]
    else {
      // The last operand: AND and count in one pass.
      let count = 0
      for (let w = 0; w < end; w++) {
        const both = matches[w] & bits[w]
        matches[w] = both
        if (both !== 0) count += popcount(both)
      }
      matches.fill(0, end)
      return count
    }
    matches.fill(0, end)
  }
  // A single operand: its bits were copied.
  let count = 0
  for (let w = 0; w < words; w++) count += popcount(matches[w])
  return count
}

/** Whether slot is set in a bitset. */
export function hasBit(bits: Int32Array, slot: number): boolean {
  return (bits[slot >> 5] & (1 << (slot & 31))) !== 0
}

function unionOf(operand: Operand, union: Int32Array): Int32Array {
  const words = union.length
  union.fill(0)
  for (const list of operand.lists) {
    const bits = denseBits(list, words)
    if (bits !== null) {
      const end = Math.min(words, bits.length)
      for (let w = 0; w < end; w++) union[w] |= bits[w]
    } else {
      const { docs, length } = list
      for (let k = 0; k < length; k++) union[docs[k] >> 5] |= 1 << (docs[k] & 31)
    }
  }
  return union
}

/** The list's bitset when it holds at least one slot in 32 (made on first use, then kept current), else null. */
function denseBits(list: Operand['lists'][number], words: number): Int32Array | null {
  if (list.bits !== null) return list.bits
  return list.length >= words ? list.attachBits(words) : null
}

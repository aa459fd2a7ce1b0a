/** The numeric columns a listing order sorts by, most significant first; ties then go by id. */
export type SortKeys = readonly Float64Array[]

/** Below this many slots a comparator sort is cheaper than the radix passes. */
const SMALL = 512
const DIGIT = 0xffff

// A float64's two 32-bit words as this platform stores them.
const float = new Float64Array(1)
const words = new Uint32Array(float.buffer)
const HIGH = (() => {
  float[0] = 1
  return words[1] === 0x3ff00000 ? 1 : 0
})()

/**
 * Sorts slots ascending by `keys` in turn, then by id: the order a comparator sort gives, by stable radix passes
 * over each key's bits (least significant key first), then an insertion by id within each run equal in every key.
 * A read model's first listing after a load merges a million slots, which a comparator sort took seconds to
 * order while every request waited. Columns hold no NaN (times and trending scores; -Infinity is fine).
 */
export function sortSlots(slots: Int32Array, keys: SortKeys, ids: readonly (string | undefined)[]): void {
  const n = slots.length
  const compare = (a: number, b: number) => {
    for (const column of keys) if (column[a] !== column[b]) return (column[a] as number) < (column[b] as number) ? -1 : 1
    const x = ids[a] as string
    const y = ids[b] as string
    return x < y ? -1 : x > y ? 1 : 0
  }
  if (n <= SMALL) {
    slots.set(Array.from(slots).sort(compare))
    return
  }
  let [slotsA, highA, lowA]: [Int32Array, Uint32Array, Uint32Array] = [slots, new Uint32Array(n), new Uint32Array(n)]
  let [slotsB, highB, lowB]: [Int32Array, Uint32Array, Uint32Array] = [new Int32Array(n), new Uint32Array(n), new Uint32Array(n)]
  const count = new Int32Array(DIGIT + 2)
  for (let k = keys.length - 1; k >= 0; k--) {
    const column = keys[k] as Float64Array
    for (let i = 0; i < n; i++) {
      float[0] = (column[slotsA[i] as number] as number) || 0 // -0 sorts as 0
      const high = words[HIGH] as number
      const negative = high >>> 31 === 1
      highA[i] = negative ? ~high >>> 0 : (high | 0x80000000) >>> 0
      lowA[i] = negative ? ~(words[1 - HIGH] as number) >>> 0 : (words[1 - HIGH] as number)
    }
    for (let pass = 0; pass < 4; pass++) {
      const bits = pass < 2 ? lowA : highA
      const shift = pass % 2 === 0 ? 0 : 16
      count.fill(0)
      for (let i = 0; i < n; i++) count[(((bits[i] as number) >>> shift) & DIGIT) + 1]++
      // Every slot has the same digit here: the pass would change nothing.
      if (count[(((bits[0] as number) >>> shift) & DIGIT) + 1] === n) continue
      for (let d = 1; d <= DIGIT + 1; d++) count[d] = (count[d] as number) + (count[d - 1] as number)
      for (let i = 0; i < n; i++) {
        const at = count[((bits[i] as number) >>> shift) & DIGIT]++ as number
        slotsB[at] = slotsA[i] as number
        highB[at] = highA[i] as number
        lowB[at] = lowA[i] as number
      }
      ;[slotsA, highA, lowA, slotsB, highB, lowB] = [slotsB, highB, lowB, slotsA, highA, lowA]
    }
  }
  // Runs equal in every key (few and short): by id, in place. The bits left are the most significant key's.
  for (let i = 1; i < n; i++) {
    const high = highA[i] as number
    const low = lowA[i] as number
    if (high !== highA[i - 1] || low !== lowA[i - 1]) continue
    const slot = slotsA[i] as number
    const id = ids[slot] as string
    let j = i - 1
    for (; j >= 0 && highA[j] === high && lowA[j] === low; j--) {
      const other = slotsA[j] as number
      if (!sameKeys(keys, other, slot) || (ids[other] as string) < id) break
      slotsA[j + 1] = other
    }
    slotsA[j + 1] = slot
  }
  if (slotsA !== slots) slots.set(slotsA)
}

function sameKeys(keys: SortKeys, a: number, b: number): boolean {
  for (const column of keys) if (column[a] !== column[b]) return false
  return true
}

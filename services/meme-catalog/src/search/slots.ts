/**
 * Slots by document id: linear probing on typed arrays, the ids themselves staying in the index's id column
 * (`idOf`). A Map of a million id strings costs tens of MB more, and each of its growths is a large old-space
 * allocation that brings a major GC marking every document of the caller.
 */
export class SlotTable {
  /** Per cell two entries: slot + 1 (0 when empty), then the id's hash; side by side, one cache line a probe. */
  private cells = new Int32Array(2048)
  size = 0

  constructor(private readonly idOf: (slot: number) => string | undefined) {}

  /** The hash the table files id under: a load computes it once for its lookup and its insert. */
  static hash(id: string): number {
    return hashOf(id)
  }

  /** The slot of id, or -1. */
  get(id: string, hash = hashOf(id)): number {
    const cells = this.cells
    const mask = (cells.length >> 1) - 1
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const cell = cells[2 * i]
      if (cell === 0) return -1
      if (cells[2 * i + 1] === hash && this.idOf(cell - 1) === id) return cell - 1
    }
  }

  /** Records the slot of an id not in the table (idOf(slot) must already be id). */
  set(id: string, slot: number, hash = hashOf(id)): void {
    if ((this.size + 1) * 4 > this.cells.length) this.resize(this.cells.length)
    this.place(hash, slot + 1)
    this.size++
  }

  /** Makes room for `count` ids in all at once (a load that knows its size rehashes once). */
  reserve(count: number): void {
    let cells = this.cells.length >> 1
    while (count * 2 > cells) cells *= 2
    if (cells * 2 > this.cells.length) this.resize(cells)
  }

  delete(id: string): void {
    const hash = hashOf(id)
    const cells = this.cells
    const mask = (cells.length >> 1) - 1
    let i = hash & mask
    for (; ; i = (i + 1) & mask) {
      if (cells[2 * i] === 0) return
      if (cells[2 * i + 1] === hash && this.idOf(cells[2 * i] - 1) === id) break
    }
    // Backward shift: move up later entries of the run that may sit at i, so no probe meets a hole early.
    for (let j = (i + 1) & mask; cells[2 * j] !== 0; j = (j + 1) & mask) {
      const home = cells[2 * j + 1] & mask
      // The entry at j may move to i when its home is not cyclically within (i, j].
      if (i < j ? home <= i || home > j : home <= i && home > j) {
        cells[2 * i] = cells[2 * j]
        cells[2 * i + 1] = cells[2 * j + 1]
        i = j
      }
    }
    cells[2 * i] = 0
    this.size--
  }

  clear(): void {
    this.cells = new Int32Array(2048)
    this.size = 0
  }

  private place(hash: number, cell: number): void {
    const cells = this.cells
    const mask = (cells.length >> 1) - 1
    let i = hash & mask
    while (cells[2 * i] !== 0) i = (i + 1) & mask
    cells[2 * i] = cell
    cells[2 * i + 1] = hash
  }

  /** Rehashes into `size` cells. */
  private resize(size: number): void {
    const old = this.cells
    this.cells = new Int32Array(2 * size)
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.place(old[i + 1], old[i])
  }
}

/**
 * FNV-1a over every character, two per step (a 16-bit character each: a load hashes a million ids, half the
 * multiplications), mixed at the end (ids may differ only in their last characters).
 */
function hashOf(id: string): number {
  let h = 0x811c9dc5
  let i = 0
  for (; i + 1 < id.length; i += 2) h = Math.imul(h ^ (id.charCodeAt(i) | (id.charCodeAt(i + 1) << 16)), 0x01000193)
  if (i < id.length) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  return h ^ (h >>> 15)
}

/**
 * Slots by document id: linear probing on typed arrays, the ids themselves staying in the index's id column
 * (`idOf`). A Map of a million id strings costs tens of MB more, and each of its growths is a large old-space
 * allocation that brings a major GC marking every document of the caller.
 */
export class SlotTable {
  /** slot + 1 per cell, 0 when empty. */
  private cells = new Int32Array(1024)
  private hashes = new Int32Array(1024)
  size = 0

  constructor(private readonly idOf: (slot: number) => string | undefined) {}

  /** The slot of id, or -1. */
  get(id: string): number {
    const hash = hashOf(id)
    const mask = this.cells.length - 1
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const cell = this.cells[i]
      if (cell === 0) return -1
      if (this.hashes[i] === hash && this.idOf(cell - 1) === id) return cell - 1
    }
  }

  /** Records the slot of an id not in the table (idOf(slot) must already be id). */
  set(id: string, slot: number): void {
    if ((this.size + 1) * 2 > this.cells.length) this.resize(this.cells.length * 2)
    this.place(hashOf(id), slot + 1)
    this.size++
  }

  delete(id: string): void {
    const hash = hashOf(id)
    const { cells, hashes } = this
    const mask = cells.length - 1
    let i = hash & mask
    for (; ; i = (i + 1) & mask) {
      if (cells[i] === 0) return
      if (hashes[i] === hash && this.idOf(cells[i] - 1) === id) break
    }
    // Backward shift: move up later entries of the run that may sit at i, so no probe meets a hole early.
    for (let j = (i + 1) & mask; cells[j] !== 0; j = (j + 1) & mask) {
      const home = hashes[j] & mask
      // The entry at j may move to i when its home is not cyclically within (i, j].
      if (i < j ? home <= i || home > j : home <= i && home > j) {
        cells[i] = cells[j]
        hashes[i] = hashes[j]
        i = j
      }
    }
    cells[i] = 0
    this.size--
  }

  clear(): void {
    this.cells = new Int32Array(1024)
    this.hashes = new Int32Array(1024)
    this.size = 0
  }

  private place(hash: number, cell: number): void {
    const mask = this.cells.length - 1
    let i = hash & mask
    while (this.cells[i] !== 0) i = (i + 1) & mask
    this.cells[i] = cell
    this.hashes[i] = hash
  }

  private resize(size: number): void {
    const { cells, hashes } = this
    this.cells = new Int32Array(size)
    this.hashes = new Int32Array(size)
    for (let i = 0; i < cells.length; i++) if (cells[i] !== 0) this.place(hashes[i], cells[i])
  }
}

/** FNV-1a of every character, mixed at the end (ids may differ only in their last characters). */
function hashOf(id: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  return h ^ (h >>> 15)
}

/**
 * Which postings each slot appears in (needed to remove or replace a document), kept as term ids in one
 * Int32Array arena: no JS array per document, so 100k documents cost a few MB and nothing for the GC to scan.
 */
export class ForwardIndex {
  private arena = new Int32Array(4096)
  private end = 0
  private wasted = 0
  private start = new Int32Array(0)
  private count = new Int32Array(0)

  /** Makes room for slots below capacity. */
  grow(capacity: number): void {
    const start = new Int32Array(capacity)
    start.set(this.start.subarray(0, Math.min(capacity, this.start.length)))
    const count = new Int32Array(capacity)
    count.set(this.count.subarray(0, Math.min(capacity, this.count.length)))
    this.start = start
    this.count = count
  }

  /** Records the term ids of a slot (replacing what it had). */
  set(slot: number, ids: Int32Array, n: number): void {
    this.delete(slot)
    if (this.end + n > this.arena.length) this.makeRoom(n)
    this.arena.set(ids.subarray(0, n), this.end)
    this.start[slot] = this.end
    this.count[slot] = n
    this.end += n
  }

  /** The term ids of a slot: a view, valid until the next set(). */
  get(slot: number): Int32Array {
    return this.arena.subarray(this.start[slot], this.start[slot] + this.count[slot])
  }

  delete(slot: number): void {
    this.wasted += this.count[slot]
    this.count[slot] = 0
  }

  clear(): void {
    this.arena = new Int32Array(4096)
    this.end = 0
    this.wasted = 0
    this.count.fill(0)
  }

  /** Compacts when half the arena is dead space, else doubles it. */
  private makeRoom(n: number): void {
    const live = this.end - this.wasted
    const size = Math.max(4096, this.wasted > live ? (live + n) * 2 : (this.end + n) * 2)
    const arena = new Int32Array(size)
    let end = 0
    for (let slot = 0; slot < this.count.length; slot++) {
      const length = this.count[slot]
      if (length === 0) continue
      arena.set(this.arena.subarray(this.start[slot], this.start[slot] + length), end)
      this.start[slot] = end
      end += length
    }
    this.arena = arena
    this.end = end
    this.wasted = 0
  }
}

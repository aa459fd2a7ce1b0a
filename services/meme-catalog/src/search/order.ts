import { grown } from './grown.ts'
import { type SortKeys, sortSlots } from './sort-slots.ts'

/** Per-slot columns shared by the index, its listing order and the ranking (replaced together on growth). */
export interface Columns {
  /** A free slot has ids[slot] === undefined. */
  ids: (string | undefined)[]
  createdAt: Float64Array
  /** The trending score (log2 of the decayed sum of views and downloads; -Infinity when never viewed). */
  trending: Float64Array
}

/** True when slot a lists after slot b. */
export type ListsAfter = (columns: Columns, a: number, b: number) => boolean

/** A listing order: its comparison, and the same order as sort keys (a large merge sorts by them). */
export interface Listing {
  listsAfter: ListsAfter
  keys: (columns: Columns) => SortKeys
}

/** Newest first: createdAt, then id. */
export const newestFirst: ListsAfter = ({ createdAt, ids }, a, b) => {
  if (createdAt[a] !== createdAt[b]) return createdAt[a] < createdAt[b]
  return (ids[a] as string) < (ids[b] as string)
}

/** Highest trending score first, then newest first (a stable order for ties, as the database's index). */
export const trendingFirst: ListsAfter = (columns, a, b) => {
  const { trending } = columns
  if (trending[a] !== trending[b]) return trending[a] < trending[b]
  return newestFirst(columns, a, b)
}

export const NEWEST_FIRST: Listing = { listsAfter: newestFirst, keys: ({ createdAt }) => [createdAt] }
export const TRENDING_FIRST: Listing = { listsAfter: trendingFirst, keys: ({ trending, createdAt }) => [trending, createdAt] }

/**
 * Live slots in listing order, stored last first (read backwards). For newest first, the common change, a meme
 * newer than all others, is an append; other changes are merged in lazily, sorting only what changed, on the
 * next read (a trending score changed by a counter flush is one such change).
 */
export class ListingOrder {
  private slots = new Int32Array(0)
  private length = 0
  /** Some entry of slots was removed or replaced. */
  private stale = false
  /** Slots waiting for the next merge, pending[0, pendingCount): a typed array, so a load of a million adds no heap. */
  private pending = new Int32Array(64)
  private pendingCount = 0
  private inPending = new Uint8Array(0)

  constructor(
    private readonly columns: Columns,
    private readonly listing: Listing,
  ) {}

  grow(capacity: number): void {
    const slots = new Int32Array(capacity)
    slots.set(this.slots.subarray(0, this.length))
    const inPending = new Uint8Array(capacity)
    inPending.set(this.inPending.subarray(0, Math.min(capacity, this.inPending.length)))
    this.slots = slots
    this.inPending = inPending
  }

  /** True when slot a lists after slot b. */
  private older = (a: number, b: number): boolean => this.listing.listsAfter(this.columns, a, b)

  added(slot: number): void {
    const clean = !this.stale && this.pendingCount === 0
    if (clean && (this.length === 0 || this.older(this.slots[this.length - 1], slot))) {
      this.slots[this.length++] = slot
    } else if (this.inPending[slot] === 0) {
      this.inPending[slot] = 1
      if (this.pendingCount === this.pending.length) this.pending = grown(this.pending, new Int32Array(this.pendingCount * 2))
      this.pending[this.pendingCount++] = slot
    }
  }

  removed(slot: number): void {
    // Removing the first listed (a replaced upload, a quick deletion) needs no merge later.
    if (!this.stale && this.pendingCount === 0 && this.length > 0 && this.slots[this.length - 1] === slot) {
      this.length--
    } else {
      this.stale = true
    }
  }

  clear(): void {
    this.length = 0
    this.stale = false
    for (let i = 0; i < this.pendingCount; i++) this.inPending[this.pending[i]] = 0
    this.pending = new Int32Array(64)
    this.pendingCount = 0
  }

  /** Number of listed documents. */
  count(): number {
    this.settle()
    return this.length
  }

  /** Slots at listing positions [offset, offset + limit). */
  page(offset: number, limit: number): number[] {
    this.settle()
    const page: number[] = []
    const end = Math.min(this.length, offset + limit)
    for (let i = offset; i < end; i++) page.push(this.slots[this.length - 1 - i])
    return page
  }

  /** Slots at listing positions [offset, offset + limit) among those set in bits. */
  pageIn(bits: Int32Array, offset: number, limit: number): number[] {
    this.settle()
    const page: number[] = []
    let skipped = 0
    for (let i = this.length - 1; i >= 0 && page.length < limit; i--) {
      const slot = this.slots[i]
      if ((bits[slot >> 5] & (1 << (slot & 31))) === 0) continue
      if (skipped < offset) skipped++
      else page.push(slot)
    }
    return page
  }

  /** Merges the changes waiting for the next read now; false when the order was already up to date. */
  settle(): boolean {
    if (!this.stale && this.pendingCount === 0) return false
    const { slots, inPending } = this
    const { ids } = this.columns
    let kept = 0
    for (let i = 0; i < this.length; i++) {
      const slot = slots[i]
      if (ids[slot] !== undefined && inPending[slot] === 0) slots[kept++] = slot
    }
    const added = new Int32Array(this.pendingCount)
    let count = 0
    for (let p = 0; p < this.pendingCount; p++) {
      const slot = this.pending[p]
      inPending[slot] = 0
      if (ids[slot] !== undefined) added[count++] = slot
    }
    const sorted = added.subarray(0, count)
    sortSlots(sorted, this.listing.keys(this.columns), ids)
    // Merge from the back into the same array: kept + added fits, and no unread entry is overwritten.
    let i = kept - 1
    let j = count - 1
    let w = kept + count - 1
    while (j >= 0) slots[w--] = i >= 0 && this.older(sorted[j], slots[i]) ? slots[i--] : sorted[j--]
    this.length = kept + count
    this.pending = new Int32Array(64)
    this.pendingCount = 0
    this.stale = false
    return true
  }
}

/** The matched candidates of a query: slots with their scores, plus the per-slot tie-breakers. */
export interface Ranking {
  scores: Float64Array
  cand: Int32Array
  createdAt: Float64Array
  ids: (string | undefined)[]
}

/**
 * Ids of positions [offset, offset + limit) among the first count candidates, ordered by score desc, then
 * createdAt desc, then id desc (the database listing's order: created_at DESC, id DESC). Keeps a bounded
 * min-heap of the best k instead of sorting every candidate.
 */
export function rankTopK(ranking: Ranking, count: number, offset: number, limit: number): string[] {
  const k = Math.min(count, offset + limit)
  if (offset >= k) return []
  const { scores, cand, createdAt, ids } = ranking
  // True when candidate a ranks before candidate b.
  const before = (a: number, b: number): boolean => {
    if (scores[a] !== scores[b]) return scores[a] > scores[b]
    const sa = cand[a]
    const sb = cand[b]
    if (createdAt[sa] !== createdAt[sb]) return createdAt[sa] > createdAt[sb]
    return (ids[sa] as string) > (ids[sb] as string)
  }

  let chosen: Int32Array
  if (k * 2 >= count) {
    // Most candidates are wanted anyway: a plain sort is simpler and as fast.
    chosen = new Int32Array(count)
    for (let i = 0; i < count; i++) chosen[i] = i
  } else {
    // heap[0] is the worst of the best k seen so far; a candidate enters only if it beats it.
    const heap = new Int32Array(k)
    for (let i = 0; i < k; i++) {
      heap[i] = i
      siftUp(heap, i, before)
    }
    for (let i = k; i < count; i++) {
      if (before(i, heap[0])) {
        heap[0] = i
        siftDown(heap, k, before)
      }
    }
    chosen = heap
  }
  chosen.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
  const end = Math.min(chosen.length, offset + limit)
  const page: string[] = []
  for (let i = offset; i < end; i++) page.push(ids[cand[chosen[i]]] as string)
  return page
}

// Min-heap by rank: a parent ranks after (is worse than) its children.
export function siftUp(heap: Int32Array, at: number, before: (a: number, b: number) => boolean): void {
  const item = heap[at]
  while (at > 0) {
    const parent = (at - 1) >> 1
    if (!before(heap[parent], item)) break
    heap[at] = heap[parent]
    at = parent
  }
  heap[at] = item
}

export function siftDown(heap: Int32Array, size: number, before: (a: number, b: number) => boolean): void {
  const item = heap[0]
  let at = 0
  for (;;) {
    let child = 2 * at + 1
    if (child >= size) break
    if (child + 1 < size && before(heap[child], heap[child + 1])) child++
    if (!before(item, heap[child])) break
    heap[at] = heap[child]
    at = child
  }
  heap[at] = item
}

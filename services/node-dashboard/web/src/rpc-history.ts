/** The RPC explorer's call history, kept in the browser across reloads; params of secret-taking methods never are. */

export interface HistoryEntry {
  at: string
  method: string
  /** null when the method takes passphrases or keys: only the call itself is remembered. */
  params: unknown[] | null
  wallet: string | null
  ok: boolean
  ms: number
}

export const HISTORY_KEY = 'node-dashboard.rpc-history'
export const HISTORY_LENGTH = 50
/** A stored history larger than this is dropped rather than parsed (a call's params can be large). */
const HISTORY_BYTES = 256 * 1024

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem' | 'removeItem'>

function isEntry(value: unknown): value is HistoryEntry {
  const e = value as HistoryEntry
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.at === 'string' &&
    typeof e.method === 'string' &&
    (e.params === null || Array.isArray(e.params)) &&
    (e.wallet === null || typeof e.wallet === 'string') &&
    typeof e.ok === 'boolean' &&
    typeof e.ms === 'number'
  )
}

export function loadHistory(storage: Storage): HistoryEntry[] {
  try {
    const text = storage.getItem(HISTORY_KEY)
    if (!text || text.length > HISTORY_BYTES) return []
    const value = JSON.parse(text)
    return Array.isArray(value) ? value.filter(isEntry).slice(0, HISTORY_LENGTH) : []
  } catch {
    return []
  }
}

/** Adds a call at the top; `secretParams` stores it without its params. Storage failures (quota, private mode) are ignored. */
export function recordCall(
  storage: Storage,
  history: HistoryEntry[],
  entry: HistoryEntry,
  secretParams: boolean,
): HistoryEntry[] {
  const next = [{ ...entry, params: secretParams ? null : entry.params }, ...history].slice(0, HISTORY_LENGTH)
  let text = JSON.stringify(next)
  // Keep the newest calls that fit rather than lose the history.
  while (text.length > HISTORY_BYTES && next.length > 1) {
    next.pop()
    text = JSON.stringify(next)
  }
  if (text.length > HISTORY_BYTES) {
    next[0] = { ...next[0], params: null }
    text = JSON.stringify(next)
  }
  try {
    storage.setItem(HISTORY_KEY, text)
  } catch {
    // The history still lives for this page.
  }
  return next
}

export function clearHistory(storage: Storage): void {
  try {
    storage.removeItem(HISTORY_KEY)
  } catch {
    // Nothing stored.
  }
}

/** Sorting of the peers table, apart from the DOM so it can be tested on its own. */
export interface PeerRow {
  id: number
  address: string
  direction: string
  connection_type: string | null
  network: string
  subversion: string
  version: number | null
  services_names: string[]
  ping_seconds: number | null
  bytes_sent: number | null
  bytes_received: number | null
  connected_since: string | null
  synced_height: number | null
}

export type SortKey =
  | 'id'
  | 'address'
  | 'direction'
  | 'connection_type'
  | 'network'
  | 'subversion'
  | 'version'
  | 'ping_seconds'
  | 'bytes_sent'
  | 'bytes_received'
  | 'connected_since'
  | 'synced_height'

export interface SortState {
  key: SortKey
  ascending: boolean
}

const sortValue = (row: PeerRow, key: SortKey): string | number | null => {
  if (key === 'connected_since') return row.connected_since === null ? null : Date.parse(row.connected_since)
  return row[key]
}

/** A stable sort; unknown values (null) always last, whatever the direction; ties by id. */
export function sortPeers(rows: readonly PeerRow[], { key, ascending }: SortState): PeerRow[] {
  const sign = ascending ? 1 : -1
  return [...rows].sort((a, b) => {
    const x = sortValue(a, key)
    const y = sortValue(b, key)
    if (x === null || y === null) return x === y ? a.id - b.id : x === null ? 1 : -1
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), 'en')
    return order === 0 ? a.id - b.id : sign * order
  })
}

/** The next state when a column header is pressed: the same column flips, a new one starts ascending. */
export function nextSort(current: SortState, key: SortKey): SortState {
  return current.key === key ? { key, ascending: !current.ascending } : { key, ascending: true }
}

/** The host of "host:port" or "[v6]:port", what a ban takes. */
export function hostOf(address: string): string {
  if (address.startsWith('[')) return address.slice(1, address.indexOf(']'))
  const colon = address.lastIndexOf(':')
  return colon === -1 || address.indexOf(':') !== colon ? address : address.slice(0, colon)
}

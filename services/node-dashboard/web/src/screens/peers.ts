import { ApiError, api, describeError } from '../api.ts'
import { type Child, h, replace } from '../dom.ts'
import { formatBytes, formatDateTime, formatInt } from '../format.ts'
import type { ScreenContext } from '../main.ts'
import { hostOf, nextSort, type PeerRow, type SortKey, type SortState, sortPeers } from '../peer-sort.ts'
import { confirmDialog } from './confirm.ts'
import { mountBans } from './peer-bans.ts'

export const peersRefreshSeconds = 15

interface PeersAnswer {
  peers: PeerRow[]
  limit: number
  truncated: boolean
  counts: { total: number; inbound: number; outbound: number; by_network: Record<string, { inbound: number; outbound: number }> }
  updated_at: string
}

const columns: { key: SortKey; label: string; cell: (p: PeerRow) => Child }[] = [
  { key: 'id', label: 'ID', cell: (p) => String(p.id) },
  { key: 'address', label: 'Address', cell: (p) => h('code', null, p.address) },
  { key: 'direction', label: 'Direction', cell: (p) => p.direction },
  { key: 'connection_type', label: 'Type', cell: (p) => p.connection_type ?? '—' },
  { key: 'network', label: 'Network', cell: (p) => p.network },
  {
    key: 'subversion',
    label: 'Client',
    cell: (p) => h('span', { title: p.services_names.join(', ') || undefined }, p.subversion || '—'),
  },
  { key: 'version', label: 'Version', cell: (p) => (p.version === null ? '—' : String(p.version)) },
  {
    key: 'ping_seconds',
    label: 'Ping',
    cell: (p) => (p.ping_seconds === null ? '—' : `${(p.ping_seconds * 1000).toFixed(1)} ms`),
  },
  { key: 'bytes_sent', label: 'Sent', cell: (p) => formatBytes(p.bytes_sent) },
  { key: 'bytes_received', label: 'Received', cell: (p) => formatBytes(p.bytes_received) },
  { key: 'connected_since', label: 'Connected since', cell: (p) => formatDateTime(p.connected_since) },
  { key: 'synced_height', label: 'Synced height', cell: (p) => formatInt(p.synced_height) },
]

function countsText(answer: PeersAnswer): string {
  const { total, inbound, outbound, by_network } = answer.counts
  const networks = Object.entries(by_network)
    .filter(([, c]) => c.inbound + c.outbound > 0)
    .map(([name, c]) => `${name} ${c.inbound + c.outbound}`)
  return `${total} peers: ${inbound} inbound, ${outbound} outbound${networks.length ? ` (${networks.join(', ')})` : ''}.`
}

export function mountPeers(view: HTMLElement, _ctx: ScreenContext): () => void {
  let stopped = false
  let answer: PeersAnswer | null = null
  let sort: SortState = { key: 'id', ascending: true }
  const dialog = confirmDialog('peers')
  const status = h('p', { role: 'status', class: 'muted', 'data-testid': 'peers-status' }, 'Loading peers…')
  const error = h('p', { role: 'alert', class: 'error', 'data-testid': 'peers-error' })
  // What the last change did: apart from the refresh status, which every reload rewrites.
  const notice = h('p', { role: 'status', 'data-testid': 'peers-notice' })
  const counts = h('p', { 'data-testid': 'peer-counts' })
  const tableHolder = h('div', { class: 'table-wrap' })
  const bans = mountBans({ confirm: dialog, announce: (text) => replace(notice, text) })

  function header(): HTMLElement {
    return h(
      'tr',
      null,
      columns.map((c) =>
        h(
          'th',
          { scope: 'col', 'aria-sort': sort.key === c.key ? (sort.ascending ? 'ascending' : 'descending') : 'none' },
          h(
            'button',
            {
              type: 'button',
              class: 'sort',
              'data-sort': c.key,
              onclick: () => {
                sort = nextSort(sort, c.key)
                draw()
                tableHolder.querySelector<HTMLButtonElement>(`button[data-sort="${c.key}"]`)?.focus()
              },
            },
            c.label,
            h('span', { 'aria-hidden': 'true' }, sort.key === c.key ? (sort.ascending ? ' ▲' : ' ▼') : ''),
          ),
        ),
      ),
      h('th', { scope: 'col' }, 'Actions'),
    )
  }

  function row(p: PeerRow): HTMLElement {
    return h(
      'tr',
      { 'data-peer-id': String(p.id) },
      columns.map((c) => h('td', null, c.cell(p))),
      h(
        'td',
        { class: 'row-actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': `Disconnect peer ${p.id} (${p.address})`,
            onclick: () => void disconnect(p),
          },
          'Disconnect',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            'aria-label': `Ban the address of peer ${p.id} (${hostOf(p.address)})`,
            onclick: () => bans.prefill(hostOf(p.address)),
          },
          'Ban…',
        ),
      ),
    )
  }

  function draw(): void {
    if (!answer) return
    replace(counts, countsText(answer))
    const rows = sortPeers(answer.peers, sort)
    replace(
      tableHolder,
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No peers are connected.')
        : h(
            'table',
            { class: 'data', 'data-testid': 'peers-table' },
            h('caption', null, 'Connected peers; press a column heading to sort by it.'),
            h('thead', null, header()),
            h('tbody', null, rows.map(row)),
          ),
      answer.truncated ? h('p', { class: 'muted' }, `Only the first ${answer.limit} peers (by id) are listed.`) : null,
    )
  }

  async function load(): Promise<void> {
    try {
      const next = await api<PeersAnswer>('GET', '/api/peers')
      if (stopped) return
      answer = next
      replace(error)
      replace(status, `Updated ${formatDateTime(next.updated_at)}; refreshes every ${peersRefreshSeconds} s.`)
      draw()
    } catch (e) {
      if (stopped || (e instanceof ApiError && e.status === 401)) return
      replace(error, describeError(e))
      replace(status, 'The peers could not be read.')
    }
  }

  async function disconnect(p: PeerRow): Promise<void> {
    if (
      !(await dialog.ask(
        `Disconnect peer ${p.id} (${p.address})? The node may connect to another peer in its place.`,
        'Disconnect',
      ))
    )
      return
    try {
      await api('POST', '/api/peers/disconnect', { id: p.id })
      replace(notice, `Peer ${p.id} (${p.address}) was disconnected.`)
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return
      replace(error, describeError(e))
    }
    await load()
  }

  replace(
    view,
    h(
      'div',
      { class: 'screen-head' },
      h('h1', { id: 'screen-title' }, 'Peers'),
      h('button', { type: 'button', class: 'secondary', onclick: () => void Promise.all([load(), bans.load()]) }, 'Refresh'),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'peers-title' },
      h('h2', { id: 'peers-title' }, 'Connected peers'),
      counts,
      status,
      notice,
      error,
      tableHolder,
    ),
    bans.element,
    dialog.element,
  )
  void load()
  void bans.load()
  const timer = setInterval(() => {
    if (!document.hidden) void load()
  }, peersRefreshSeconds * 1000)
  bans.onChange = () => void load()
  return () => {
    stopped = true
    bans.stop()
    clearInterval(timer)
    dialog.close()
  }
}

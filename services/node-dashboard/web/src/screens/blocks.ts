import { ApiError, api, describeError } from '../api.ts'
import { type Child, h, replace } from '../dom.ts'
import { formatBytes, formatDateTime, formatFeeRate, formatInt, formatTime } from '../format.ts'
import type { ScreenContext } from '../main.ts'

export const refreshSeconds = 15
const COUNT = 20

interface BlockRow {
  height: number
  hash: string
  time: number
  txs: number
  size: number
  weight: number
  total_fee: number
  median_fee_rate: number
}

interface FeeBucket {
  min_fee_rate: number
  max_fee_rate: number | null
  count: number
  vsize: number
}

interface MempoolFees {
  state: 'ok' | 'too-large'
  mempool_size: number
  max_transactions: number
  fetched_at: string
  buckets: FeeBucket[]
}

const cell = (value: Child, numeric = true) => h('td', { class: numeric ? 'num' : null }, value)

/** A table with a caption and column headers a screen reader announces with each cell. */
function table(caption: string, testid: string, heads: string[], body: HTMLElement[]): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { 'data-testid': testid },
      h('caption', null, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          heads.map((head) => h('th', { scope: 'col' }, head)),
        ),
      ),
      h('tbody', null, body),
    ),
  )
}

function blocksTable(blocks: BlockRow[]): HTMLElement {
  return table(
    `The last ${blocks.length} blocks, newest first`,
    'blocks-table',
    ['Height', 'Time', 'Transactions', 'Size', 'Weight', 'Total fees', 'Median fee rate', 'Hash'],
    blocks.map((b) =>
      h(
        'tr',
        { 'data-height': String(b.height) },
        h('th', { scope: 'row', class: 'num' }, formatInt(b.height)),
        cell(formatDateTime(b.time * 1000), false),
        cell(formatInt(b.txs)),
        cell(formatBytes(b.size)),
        cell(`${formatInt(b.weight)} WU`),
        cell(`${formatInt(b.total_fee)} sat`),
        cell(formatFeeRate(b.median_fee_rate)),
        cell(h('code', { class: 'hash', title: b.hash }, `${b.hash.slice(0, 12)}…`), false),
      ),
    ),
  )
}

function bucketLabel(b: FeeBucket): string {
  return b.max_fee_rate === null ? `${formatInt(b.min_fee_rate)}+ sat/vB` : `${b.min_fee_rate}–${b.max_fee_rate} sat/vB`
}

function mempoolSection(fees: MempoolFees): Child[] {
  if (fees.state === 'too-large') {
    return [
      h(
        'p',
        { 'data-testid': 'mempool-too-large' },
        `The mempool holds ${formatInt(fees.mempool_size)} transactions, more than the ${formatInt(fees.max_transactions)} ` +
          'the dashboard fetches for a distribution (MEMPOOL_FEES_MAX_TXS). The fee estimates above still apply.',
      ),
    ]
  }
  const used = fees.buckets.filter((b) => b.count > 0)
  const most = Math.max(1, ...used.map((b) => b.vsize))
  return [
    h('p', { class: 'muted' }, `${formatInt(fees.mempool_size)} transactions, read at ${formatTime(fees.fetched_at)}.`),
    used.length === 0
      ? h('p', { class: 'empty' }, 'The mempool is empty.')
      : table(
          'Mempool transactions by fee rate',
          'mempool-fees-table',
          ['Fee rate', 'Transactions', 'Virtual size', 'Share'],
          used.map((b) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, bucketLabel(b)),
              cell(formatInt(b.count)),
              cell(formatBytes(b.vsize)),
              cell(
                h('meter', {
                  min: '0',
                  max: String(most),
                  value: String(b.vsize),
                  'aria-label': `${bucketLabel(b)} virtual size`,
                }),
              ),
            ),
          ),
        ),
  ]
}

export function mountBlocks(view: HTMLElement, _ctx: ScreenContext): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const blocksArea = h('div', { 'aria-live': 'polite', 'aria-busy': 'true' }, h('p', null, 'Loading…'))
  const mempoolArea = h('div', { 'aria-live': 'polite', 'aria-busy': 'true' }, h('p', null, 'Loading…'))
  const status = h('span', { 'data-testid': 'blocks-status' })

  async function load<T>(path: string, area: HTMLElement, show: (body: T) => Child[]): Promise<void> {
    area.setAttribute('aria-busy', 'true')
    try {
      const body = await api<T>('GET', path)
      if (!stopped) replace(area, ...show(body))
    } catch (error) {
      if (stopped || (error instanceof ApiError && error.status === 401)) return
      replace(area, h('p', { class: 'error', role: 'alert' }, describeError(error)))
    } finally {
      area.setAttribute('aria-busy', 'false')
    }
  }

  async function refresh(): Promise<void> {
    clearTimeout(timer)
    await Promise.all([
      load<{ blocks: BlockRow[] }>(`/api/blocks?count=${COUNT}`, blocksArea, (body) => [blocksTable(body.blocks)]),
      load<MempoolFees>('/api/mempool/fees', mempoolArea, mempoolSection),
    ])
    if (stopped) return
    replace(status, `Auto-refresh every ${refreshSeconds} s · updated ${formatTime(new Date())}`)
    if (!document.hidden) timer = setTimeout(() => void refresh(), refreshSeconds * 1000)
  }

  function onVisibility(): void {
    if (document.hidden) clearTimeout(timer)
    else void refresh()
  }

  document.addEventListener('visibilitychange', onVisibility)
  replace(
    view,
    h(
      'div',
      { class: 'screen-head' },
      h('h1', { id: 'screen-title' }, 'Blocks'),
      h(
        'p',
        { class: 'muted' },
        status,
        ' ',
        h('button', { type: 'button', class: 'secondary', onclick: () => void refresh() }, 'Refresh now'),
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'blocks-title' },
      h('h2', { id: 'blocks-title' }, 'Recent blocks'),
      blocksArea,
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'mempool-fees-title' },
      h('h2', { id: 'mempool-fees-title' }, 'Mempool fee rates'),
      mempoolArea,
    ),
  )
  void refresh()
  return () => {
    stopped = true
    clearTimeout(timer)
    document.removeEventListener('visibilitychange', onVisibility)
  }
}

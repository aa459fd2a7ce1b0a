import { ApiError, api, describeError } from '../api.ts'
import { type Child, h, replace, rows } from '../dom.ts'
import {
  formatBytes,
  formatCoin,
  formatDuration,
  formatHashrate,
  formatInt,
  formatNumber,
  formatPercent,
  formatTime,
  isNum,
} from '../format.ts'
import type { ScreenContext } from '../main.ts'
import { pick } from '../pick.ts'

export const refreshSeconds = 10

type Summary = Record<string, any>

function card(title: string, testid: string, ...body: Child[]): HTMLElement {
  const id = `card-${testid}`
  return h('section', { class: 'card', 'aria-labelledby': id, 'data-testid': testid }, h('h2', { id }, title), ...body)
}

function progress(fraction: unknown): Child {
  if (!isNum(fraction)) return '—'
  const value = Math.max(0, Math.min(1, fraction))
  return h(
    'span',
    { class: 'progress-wrap' },
    h('progress', { max: '1', value: String(value), 'aria-label': 'Sync progress' }),
    ` ${formatPercent(value)}`,
  )
}

function warningsOf(...sources: unknown[]): string[] {
  const out: string[] = []
  for (const source of sources) {
    if (typeof source === 'string' && source.trim()) out.push(source.trim())
    else if (Array.isArray(source)) for (const w of source) if (typeof w === 'string' && w.trim()) out.push(w.trim())
  }
  return [...new Set(out)]
}

function chainCard(chain: Summary): HTMLElement {
  const blocks = pick(chain, 'blocks')
  const headers = pick(chain, 'headers')
  const warnings = warningsOf(pick(chain, 'warnings'))
  const behind = isNum(blocks) && isNum(headers) && headers > blocks ? ` (${formatInt(headers - blocks)} behind)` : ''
  return card(
    'Chain',
    'card-chain',
    rows([
      ['Network', String(pick(chain, 'chain') ?? '—')],
      ['Height', h('span', { 'data-testid': 'height' }, formatInt(blocks))],
      ['Headers', `${formatInt(headers)}${behind}`],
      ['Sync', progress(pick(chain, 'verificationprogress'))],
      ['Initial download', pick(chain, 'initialblockdownload') === true ? 'yes' : 'no'],
      ['Difficulty', formatNumber(pick(chain, 'difficulty'), 4)],
      ['Size on disk', `${formatBytes(pick(chain, 'size_on_disk'))}${pick(chain, 'pruned') === true ? ' (pruned)' : ''}`],
    ]),
    warnings.length
      ? h(
          'ul',
          { class: 'warnings', 'aria-label': 'Node warnings' },
          warnings.map((w) => h('li', null, w)),
        )
      : null,
  )
}

function networkCard(network: Summary): HTMLElement {
  const version = pick(network, 'version')
  const inbound = pick(network, 'connections_in')
  const outbound = pick(network, 'connections_out')
  return card(
    'Network',
    'card-network',
    rows([
      ['Version', isNum(version) ? String(version) : '—'],
      ['User agent', String(pick(network, 'subversion') ?? '—')],
      ['Peers', `${formatInt(pick(network, 'connections'))} (in ${formatInt(inbound)} / out ${formatInt(outbound)})`],
      ['Received', formatBytes(pick(network, 'totalbytesrecv', 'totals.totalbytesrecv', 'nettotals.totalbytesrecv'))],
      ['Sent', formatBytes(pick(network, 'totalbytessent', 'totals.totalbytessent', 'nettotals.totalbytessent'))],
    ]),
  )
}

function mempoolCard(mempool: Summary): HTMLElement {
  const usage = pick(mempool, 'usage')
  const max = pick(mempool, 'maxmempool')
  return card(
    'Mempool',
    'card-mempool',
    rows([
      ['Transactions', formatInt(pick(mempool, 'size'))],
      ['Size', formatBytes(pick(mempool, 'bytes'))],
      [
        'Memory',
        h(
          'span',
          { class: 'progress-wrap' },
          isNum(usage) && isNum(max) && max > 0
            ? h('meter', { min: '0', max: String(max), value: String(usage), 'aria-label': 'Mempool memory usage' })
            : null,
          ` ${formatBytes(usage)} of ${formatBytes(max)}`,
        ),
      ],
      ['Min fee', `${formatNumber(pick(mempool, 'mempoolminfee'), 8)} /kvB`],
    ]),
  )
}

/** estimatesmartfee per target; a node without an estimate says why (a fresh node: "Insufficient data…"). */
function feesCard(estimates: unknown): HTMLElement | null {
  if (!Array.isArray(estimates)) return null
  return card(
    'Fee estimates',
    'card-fees',
    rows(
      estimates.map((e: Summary): [string, Child] => [
        `${formatInt(e.conf_target)} ${e.conf_target === 1 ? 'block' : 'blocks'}`,
        isNum(e.sat_per_vb)
          ? `${formatNumber(e.sat_per_vb, 1)} sat/vB`
          : h('span', { class: 'muted' }, Array.isArray(e.errors) && e.errors.length ? String(e.errors[0]) : 'no estimate'),
      ]),
    ),
  )
}

function miningCard(mining: Summary, chain: Summary): HTMLElement {
  return card(
    'Mining',
    'card-mining',
    rows([
      ['Network hash rate', formatHashrate(pick(mining, 'networkhashps'))],
      ['Difficulty', formatNumber(pick(mining, 'difficulty') ?? pick(chain, 'difficulty'), 4)],
      ['Pooled transactions', formatInt(pick(mining, 'pooledtx'))],
    ]),
  )
}

function uptimeCard(uptime: unknown): HTMLElement {
  const seconds = isNum(uptime) ? uptime : pick(uptime, 'seconds')
  return card(
    'Uptime',
    'card-uptime',
    h('p', { class: 'big' }, seconds === null || seconds === undefined ? 'Not reported by this node' : formatDuration(seconds)),
  )
}

function walletCard(wallet: Summary): HTMLElement {
  const mine = pick(wallet, 'balances.mine', 'getbalances.mine', 'mine') ?? {}
  return card(
    'Wallet',
    'card-wallet',
    rows([
      ['Wallet', String(pick(wallet, 'walletname', 'info.walletname', 'getwalletinfo.walletname') ?? '—')],
      ['Trusted', formatCoin(pick(mine, 'trusted'))],
      ['Pending', formatCoin(pick(mine, 'untrusted_pending'))],
      ['Immature', formatCoin(pick(mine, 'immature'))],
      ['Transactions', formatInt(pick(wallet, 'txcount', 'info.txcount', 'getwalletinfo.txcount'))],
    ]),
  )
}

/** Node down, starting or not configured: a state, with the API's own words. */
function stateCard(error: unknown, ctx: ScreenContext): HTMLElement {
  const detail = describeError(error)
  const status = error instanceof ApiError ? error.status : 0
  let title = 'Node unreachable'
  let state = 'down'
  if (/\bstarting\b|warm-?up/i.test(detail)) {
    title = 'Node starting'
    state = 'starting'
  } else if (status === 400) {
    title = 'Node not configured'
    state = 'unconfigured'
  } else if (status === 0) {
    title = 'Dashboard server unreachable'
  }
  return h(
    'section',
    { class: `card state state-${state}`, role: 'status', 'data-testid': 'node-state', 'data-state': state },
    h('h2', null, title),
    h('p', { class: 'detail' }, detail),
    state === 'unconfigured'
      ? h('p', null, h('a', { href: '#/settings', onclick: () => ctx.navigate('settings') }, 'Open the settings'))
      : null,
  )
}

export function mountOverview(view: HTMLElement, ctx: ScreenContext): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let loading = false
  const status = h('span', { 'data-testid': 'refresh-status' })
  const refreshButton = h('button', { type: 'button', class: 'secondary', onclick: () => void refresh() }, 'Refresh now')
  const grid = h('div', { class: 'grid', 'aria-live': 'polite', 'aria-busy': 'true' }, h('p', null, 'Loading…'))
  let updatedAt: string | null = null

  function showStatus(): void {
    const when = updatedAt ? `updated ${formatTime(updatedAt)}` : 'not loaded yet'
    replace(
      status,
      document.hidden
        ? `Auto-refresh paused while this tab is hidden · ${when}`
        : `Auto-refresh every ${refreshSeconds} s · ${when}`,
    )
  }

  function schedule(): void {
    clearTimeout(timer)
    if (!stopped && !document.hidden) timer = setTimeout(() => void refresh(), refreshSeconds * 1000)
  }

  async function refresh(): Promise<void> {
    if (loading || stopped) return
    loading = true
    grid.setAttribute('aria-busy', 'true')
    try {
      const s = await api<Summary>('GET', '/api/dashboard/summary')
      if (stopped) return
      const chain = s.chain ?? {}
      updatedAt = s.updated_at ?? new Date().toISOString()
      replace(
        grid,
        chainCard(chain),
        networkCard(s.network ?? {}),
        mempoolCard(s.mempool ?? {}),
        feesCard(s.fee_estimates),
        miningCard(s.mining ?? {}, chain),
        uptimeCard(s.uptime),
        s.wallet ? walletCard(s.wallet) : null,
        !s.wallet && s.wallet_error ? card('Wallet', 'card-wallet', h('p', { class: 'error' }, String(s.wallet_error))) : null,
      )
    } catch (error) {
      if (stopped || (error instanceof ApiError && error.status === 401)) return
      updatedAt = new Date().toISOString()
      replace(grid, stateCard(error, ctx))
    } finally {
      loading = false
      grid.setAttribute('aria-busy', 'false')
      showStatus()
      schedule()
    }
  }

  // Hidden tabs poll nothing; coming back refreshes at once.
  function onVisibility(): void {
    if (document.hidden) clearTimeout(timer)
    else void refresh()
    showStatus()
  }

  document.addEventListener('visibilitychange', onVisibility)
  replace(
    view,
    h(
      'div',
      { class: 'screen-head' },
      h('h1', { id: 'screen-title' }, 'Overview'),
      h('p', { class: 'muted' }, status, ' ', refreshButton),
    ),
    grid,
  )
  showStatus()
  void refresh()
  return () => {
    stopped = true
    clearTimeout(timer)
    document.removeEventListener('visibilitychange', onVisibility)
  }
}

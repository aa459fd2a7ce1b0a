import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { ApiError, api, describeError } from '../api.ts'
import { h, replace } from '../dom.ts'
import { formatFeeRate, formatHashrate, formatInt, formatRate } from '../format.ts'
import type { ScreenContext } from '../main.ts'
import { type Point, pointsOf, pointTime, rateSeries, seriesOf } from './chart-data.ts'

export const windows = ['5m', '30m', '2h', '6h', 'all'] as const
type Window = (typeof windows)[number]

interface ChartDef {
  id: string
  title: string
  series: { label: string; values: (points: Point[], times: number[]) => (number | null)[] }[]
  format: (value: number) => string
}

const charts: ChartDef[] = [
  {
    id: 'height',
    title: 'Block height',
    series: [
      { label: 'Blocks', values: (p) => seriesOf(p, 'height', 'blocks') },
      { label: 'Headers', values: (p) => seriesOf(p, 'headers') },
    ],
    format: formatInt,
  },
  {
    id: 'mempool',
    title: 'Mempool transactions',
    series: [{ label: 'Transactions', values: (p) => seriesOf(p, 'mempool_tx', 'mempool_size', 'mempool_txs', 'mempool.size') }],
    format: formatInt,
  },
  {
    id: 'peers',
    title: 'Peers',
    series: [
      { label: 'Inbound', values: (p) => seriesOf(p, 'peers_in', 'connections_in') },
      { label: 'Outbound', values: (p) => seriesOf(p, 'peers_out', 'connections_out') },
    ],
    format: formatInt,
  },
  {
    id: 'traffic',
    title: 'Traffic',
    series: [
      { label: 'Received', values: (p, t) => rateSeries(seriesOf(p, 'bytes_recv', 'bytes_received', 'totalbytesrecv'), t) },
      { label: 'Sent', values: (p, t) => rateSeries(seriesOf(p, 'bytes_sent', 'totalbytessent'), t) },
    ],
    format: formatRate,
  },
  {
    id: 'fees',
    title: 'Fee estimates (sat/vB)',
    series: [
      { label: '1 block', values: (p) => seriesOf(p, 'fee_rate_1') },
      { label: '3 blocks', values: (p) => seriesOf(p, 'fee_rate_3') },
      { label: '6 blocks', values: (p) => seriesOf(p, 'fee_rate_6') },
      { label: '12 blocks', values: (p) => seriesOf(p, 'fee_rate_12') },
      { label: '144 blocks', values: (p) => seriesOf(p, 'fee_rate_144') },
    ],
    format: formatFeeRate,
  },
  {
    id: 'hashrate',
    title: 'Network hash rate',
    series: [{ label: 'Hash rate', values: (p) => seriesOf(p, 'network_hashps', 'networkhashps', 'hashrate', 'hash_rate') }],
    format: formatHashrate,
  },
]

function css(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback
}

const palette = ['--chart-1', '--chart-2', '--chart-3', '--chart-4', '--chart-5']

// Whole-number metrics (height, transactions, peers) get whole-number ticks.
const integerSteps = [1, 2, 5].flatMap((m) => Array.from({ length: 10 }, (_, e) => m * 10 ** e)).sort((a, b) => a - b)

function makePlot(def: ChartDef, data: uPlot.AlignedData, el: HTMLElement): uPlot {
  const text = css('--fg-muted', '#666')
  const grid = css('--border', '#ddd')
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }
  const opts: uPlot.Options = {
    width: Math.max(280, el.clientWidth || 600),
    height: 200,
    // Hovering one chart shows the values of every chart at that time.
    cursor: { drag: { x: false, y: false }, sync: { key: 'dashboard-history' } },
    scales: { x: { time: true } },
    series: [
      { label: 'Time', value: (_u, v) => (v === null ? '—' : new Date(v * 1000).toLocaleString('en-GB', { hour12: false })) },
      ...def.series.map((s, i) => ({
        label: s.label,
        stroke: css(palette[i] ?? '--chart-1', '#0a6'),
        width: 2,
        points: { show: data[0].length < 60 },
        value: (_u: uPlot, v: number | null) => (v === null ? '—' : def.format(v)),
      })),
    ],
    axes: [
      axis,
      {
        ...axis,
        incrs: def.format === formatInt ? integerSteps : undefined,
        values: (_u, ticks) => ticks.map((v) => def.format(v)),
        // Wide enough for the longest tick label ("4.05e-7 H/s", "1.2 MiB/s").
        size: (_u, values) => Math.max(50, 14 + 7 * Math.max(0, ...(values ?? []).map((v) => String(v).length))),
      },
    ],
  }
  return new uPlot(opts, data, el)
}

export function mountCharts(view: HTMLElement, _ctx: ScreenContext): () => void {
  let plots: uPlot[] = []
  let stopped = false
  let current: Window = (sessionStorage.getItem('charts.window') as Window | null) ?? '5m'
  if (!windows.includes(current)) current = '5m'
  const area = h('div', { class: 'charts', 'aria-live': 'polite' })
  const info = h('p', { class: 'muted', 'data-testid': 'chart-info' })
  const buttons = windows.map((w) =>
    h(
      'button',
      {
        type: 'button',
        class: 'segment',
        'aria-pressed': String(w === current),
        'data-window': w,
        onclick: () => {
          current = w
          sessionStorage.setItem('charts.window', w)
          for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.window === w))
          void load()
        },
      },
      w,
    ),
  )

  function destroyPlots(): void {
    for (const p of plots) p.destroy()
    plots = []
  }

  async function load(): Promise<void> {
    area.setAttribute('aria-busy', 'true')
    const wanted = current
    // About one point per two CSS pixels is as much detail as a chart can show.
    const limit = Math.min(2000, Math.max(100, Math.round(area.clientWidth / 2) || 600))
    try {
      const body = await api<Record<string, any>>('GET', `/api/dashboard/history/${wanted}?limit=${limit}`)
      if (stopped || wanted !== current) return
      const points = pointsOf(body)
      const times = points.map(pointTime)
      destroyPlots()
      replace(info, `${points.length} points in window ${body.window ?? wanted} (limit ${body.limit ?? limit}).`)
      if (points.length === 0) {
        replace(
          area,
          h(
            'p',
            { class: 'empty' },
            'No samples yet for this window. The sampler records one every few seconds while the settings are complete.',
          ),
        )
        return
      }
      replace(area)
      for (const def of charts) {
        const holder = h('div', { class: 'chart', 'data-chart': def.id, 'data-points': String(points.length) })
        area.append(h('section', { class: 'card chart-card', 'aria-label': def.title }, h('h2', null, def.title), holder))
        const data = [times, ...def.series.map((s) => s.values(points, times))] as uPlot.AlignedData
        plots.push(makePlot(def, data, holder))
      }
    } catch (error) {
      if (stopped || (error instanceof ApiError && error.status === 401)) return
      destroyPlots()
      replace(area, h('p', { class: 'error', role: 'alert' }, describeError(error)))
    } finally {
      area.setAttribute('aria-busy', 'false')
    }
  }

  const resize = new ResizeObserver(() => {
    for (const p of plots) {
      const width = (p.root.parentElement?.clientWidth ?? 600) || 600
      if (Math.abs(p.width - width) > 4) p.setSize({ width: Math.max(280, width), height: 200 })
    }
  })
  resize.observe(area)

  replace(
    view,
    h(
      'div',
      { class: 'screen-head' },
      h('h1', { id: 'screen-title' }, 'Charts'),
      h('div', { class: 'segments', role: 'group', 'aria-label': 'History window' }, buttons),
    ),
    info,
    area,
  )
  void load()
  return () => {
    stopped = true
    resize.disconnect()
    destroyPlots()
  }
}

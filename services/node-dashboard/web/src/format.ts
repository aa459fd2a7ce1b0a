/** Number and unit formatting shared by the overview, charts and actions screens. */
const dash = '—'

export function isNum(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

export function formatInt(value: unknown): string {
  return isNum(value) ? Math.round(value).toLocaleString('en-US') : dash
}

export function formatNumber(value: unknown, digits = 2): string {
  if (!isNum(value)) return dash
  // Regtest difficulty and hash rate are tiny: 4.656542e-10 rather than 0.
  if (value !== 0 && Math.abs(value) < 10 ** -digits) return String(Number(value.toExponential(digits)))
  return value.toLocaleString('en-US', { maximumFractionDigits: digits })
}

function scaled(value: unknown, base: number, units: string[], digits = 1): string {
  if (!isNum(value)) return dash
  let v = value
  let i = 0
  while (Math.abs(v) >= base && i < units.length - 1) {
    v /= base
    i += 1
  }
  return `${v.toLocaleString('en-US', { maximumFractionDigits: i === 0 ? 0 : digits })} ${units[i]}`
}

export const formatBytes = (value: unknown) => scaled(value, 1024, ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'])
/** Hash rates span from regtest's 1e-7 H/s to mainnet's EH/s. */
export function formatHashrate(value: unknown): string {
  if (!isNum(value)) return dash
  const units = ['H/s', 'kH/s', 'MH/s', 'GH/s', 'TH/s', 'PH/s', 'EH/s', 'ZH/s']
  let v = value
  let i = 0
  while (Math.abs(v) >= 1000 && i < units.length - 1) {
    v /= 1000
    i += 1
  }
  return `${formatNumber(v, Math.abs(v) < 1 ? 6 : 2)} ${units[i]}`
}
export const formatRate = (value: unknown) => (isNum(value) ? `${formatBytes(value)}/s` : dash)

/** "2 d 3 h 4 min" for an uptime in seconds. */
export function formatDuration(seconds: unknown): string {
  if (!isNum(seconds) || seconds < 0) return dash
  const s = Math.floor(seconds)
  if (s < 60) return `${s} s`
  const parts: string[] = []
  const d = Math.floor(s / 86400)
  const hr = Math.floor((s % 86400) / 3600)
  const min = Math.floor((s % 3600) / 60)
  if (d) parts.push(`${d} d`)
  if (hr) parts.push(`${hr} h`)
  if (min && d === 0) parts.push(`${min} min`)
  return parts.join(' ') || `${s} s`
}

export function formatPercent(fraction: unknown, digits = 2): string {
  return isNum(fraction) ? `${(fraction * 100).toFixed(digits)} %` : dash
}

/** Coin amounts as the node prints them (8 decimals). */
export function formatCoin(value: unknown, unit = 'BTC'): string {
  return isNum(value) ? `${value.toFixed(8)} ${unit}` : dash
}

export function formatTime(value: Date | number | string | null | undefined): string {
  if (value === null || value === undefined) return dash
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? dash : date.toLocaleTimeString('en-GB', { hour12: false })
}

export function formatDateTime(value: Date | number | string | null | undefined): string {
  if (value === null || value === undefined) return dash
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? dash : date.toLocaleString('en-GB', { hour12: false })
}

/** A fee rate in sat/vB (estimates have three decimals; one is what a wallet shows). */
export function formatFeeRate(value: unknown): string {
  return isNum(value) ? `${value.toLocaleString('en-US', { maximumFractionDigits: 1 })} sat/vB` : dash
}

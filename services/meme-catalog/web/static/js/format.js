// Human-readable sizes, dates and retry times.

/** @param {number} bytes */
export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' })

/** @param {string} iso */
export function formatDate(iso) {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date)
}

/**
 * When to retry after a 429: Retry-After (seconds) first, else RateLimit-Reset (a date-time).
 * @param {(name: string) => string | null} header
 * @returns {string}
 */
export function retryHint(header) {
  const retryAfter = Number.parseInt(header('Retry-After') ?? '', 10)
  let at = Number.isFinite(retryAfter) && retryAfter >= 0 ? Date.now() + retryAfter * 1000 : Number.NaN
  if (Number.isNaN(at)) at = Date.parse(header('RateLimit-Reset') ?? '')
  if (Number.isNaN(at)) return 'Please try again later.'
  const seconds = Math.max(1, Math.ceil((at - Date.now()) / 1000))
  const wait = seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`
  return `Try again in ${wait} (at ${timeFormat.format(new Date(at))}).`
}

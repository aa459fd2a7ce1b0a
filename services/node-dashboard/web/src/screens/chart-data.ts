import { pick } from '../pick.ts'

/** One history sample as the API returns it. */
export type Point = Record<string, unknown>

/** The history answer's points as objects: each a row of values named by `fields` (objects pass as they are). */
export function pointsOf(body: unknown): Point[] {
  if (Array.isArray(body)) return body
  const answer = (body ?? {}) as { fields?: unknown; points?: unknown }
  const points = Array.isArray(answer.points) ? answer.points : []
  const fields = Array.isArray(answer.fields) ? answer.fields.map(String) : null
  return points.map((point): Point => {
    if (!Array.isArray(point)) return (point ?? {}) as Point
    const named: Point = {}
    fields?.forEach((field, i) => {
      named[field] = point[i]
    })
    return named
  })
}

/** Seconds since the epoch (uPlot's time scale) from an ISO string, or seconds/milliseconds. */
export function pointTime(point: Point): number {
  const raw = pick(point, 'time', 't', 'ts', 'sampled_at', 'at', 'timestamp', 'bucket')
  if (typeof raw === 'number') return raw > 1e11 ? raw / 1000 : raw
  const ms = Date.parse(String(raw))
  return Number.isNaN(ms) ? Number.NaN : ms / 1000
}

export function seriesOf(points: Point[], ...keys: string[]): (number | null)[] {
  return points.map((p) => {
    const v = Number(pick(p, ...keys))
    return Number.isFinite(v) ? v : null
  })
}

/** Byte counters to bytes per second; a counter that went down (node restart) leaves a gap. */
export function rateSeries(totals: (number | null)[], times: number[]): (number | null)[] {
  return totals.map((v, i) => {
    if (i === 0) return null
    const prev = totals[i - 1]
    const dt = times[i] - times[i - 1]
    if (v === null || prev === null || !(dt > 0) || v < prev) return null
    return (v - prev) / dt
  })
}

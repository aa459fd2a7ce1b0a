/** Under this a parse of hostile text is linear in practice; a super-linear one takes seconds at these sizes. */
export const LINEAR_TIME_LIMIT_MS = 100

/** Runs `run` once and asserts it took under LINEAR_TIME_LIMIT_MS; returns its value, or what it threw. */
export function fast<T>(t: { ok(condition: boolean, message: string): unknown }, label: string, run: () => T): T | Error {
  const started = performance.now()
  let value: T | Error
  try {
    value = run()
  } catch (error) {
    value = error as Error
  }
  const ms = performance.now() - started
  t.ok(ms < LINEAR_TIME_LIMIT_MS, `${label}: ${ms.toFixed(1)} ms`)
  return value
}

/** `prefix`, then `unit` repeated, then `suffix`: about `size` characters of adversarial text. */
export const fill = (prefix: string, unit: string, suffix: string, size: number) =>
  prefix + unit.repeat(Math.max(0, Math.floor((size - prefix.length - suffix.length) / unit.length))) + suffix

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

/**
 * Asserts that `run` on input 8 times larger takes well under the 64 times a quadratic one would (at most
 * 24 times; linear is about 8, garbage collection adds some), each size warmed up, then timed as the best of five runs in
 * CPU time: a ratio of CPU times holds on a loaded machine where a fixed wall-clock limit does not.
 */
export function scalesLinearly<I>(
  t: { ok(condition: boolean, message: string): unknown },
  label: string,
  make: (size: number) => I,
  run: (input: I) => unknown,
  size = 16 * 1024,
): void {
  const best = (input: I) => {
    let min = Number.POSITIVE_INFINITY
    for (let i = 0; i < 5; i++) {
      const started = process.cpuUsage()
      try {
        run(input)
      } catch {}
      const used = process.cpuUsage(started)
      min = Math.min(min, (used.user + used.system) / 1000)
    }
    return Math.max(min, 0.05)
  }
  const small = make(size)
  const large = make(size * 8)
  best(small)
  best(large)
  const ratio = best(large) / best(small)
  t.ok(ratio < 24, `${label}: 8x the input took ${ratio.toFixed(1)}x the time`)
}

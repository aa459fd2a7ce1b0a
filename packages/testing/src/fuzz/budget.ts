/** Requests per service in the long run (`pnpm fuzz`) unless FUZZ_REQUESTS names another figure. */
export const LONG_RUN_REQUESTS = 100_000

/**
 * Requests per service for this run: FUZZ_REQUESTS when set, 100 000 with FUZZ_LONG=1, and undefined
 * for the normal (short) run, whose suites keep their own fixed sizes.
 */
export function fuzzTarget(): number | undefined {
  const raw = process.env.FUZZ_REQUESTS
  if (raw !== undefined && raw !== '') {
    const parsed = Number(raw)
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`FUZZ_REQUESTS must be a positive integer, not ${raw}`)
    return parsed
  }
  return process.env.FUZZ_LONG === '1' ? LONG_RUN_REQUESTS : undefined
}

/** true when a long run was asked for (FUZZ_LONG=1 or FUZZ_REQUESTS). */
export const fuzzLong = (): boolean => fuzzTarget() !== undefined

/**
 * One suite's share of its service's requests: `short` in the normal run, `fraction` of the target in a
 * long one. The fractions of one service's suites add up to 1, so the service gets the whole target.
 */
export function fuzzShare(short: number, fraction: number): number {
  const target = fuzzTarget()
  return target === undefined ? short : Math.max(1, Math.round(target * fraction))
}

/** How often a long run prints a progress line: often enough to poll, rarely enough not to flood the log. */
export function progressEvery(count: number): number | undefined {
  return fuzzLong() ? Math.max(1000, Math.ceil(count / 20)) : undefined
}

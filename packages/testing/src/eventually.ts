export interface EventuallyOptions {
  /** What is awaited, for the timeout error; the check's own source text when not given. */
  what?: string
  timeoutMs?: number
  intervalMs?: number
}

/**
 * Polls `check` until it returns a truthy value and resolves with that value. A throw counts as
 * "not yet". When `timeoutMs` passes first it throws, naming what was awaited and the last error,
 * so a condition that never holds fails the test.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { what, timeoutMs = 30_000, intervalMs = 100 }: EventuallyOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value as NonNullable<T>
    } catch (error) {
      lastError = error
    }
    if (Date.now() >= deadline) {
      const awaited = what ?? check.toString().replace(/\s+/g, ' ')
      const cause =
        lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`
      throw new Error(`not met within ${timeoutMs} ms: ${awaited}${cause}`, lastError === undefined ? {} : { cause: lastError })
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

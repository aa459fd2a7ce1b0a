/** JSON calls to the dashboard API: same-origin cookies, and a hook for the session ending under us. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: Record<string, unknown> | null,
    /** Seconds from a Retry-After header (429), when present. */
    readonly retryAfter: number | null,
  ) {
    super(detail)
    this.name = 'ApiError'
  }
}

let onSessionLost: (() => void) | null = null

/** main.ts registers what a 401 on a protected call means: the session expired or was cleared. */
export function setSessionLostHandler(handler: () => void): void {
  onSessionLost = handler
}

const publicPaths = new Set(['/api/auth/login', '/api/auth/me'])

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  let response: Response
  try {
    // A same-origin fetch carries the Origin header the API's CSRF check compares with its own origin.
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    })
  } catch {
    throw new ApiError(0, 'The dashboard server cannot be reached. Check the connection and try again.', null, null)
  }
  const text = await response.text()
  let parsed: unknown = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = null
  }
  if (response.ok) return parsed as T
  const record = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null
  const detail =
    typeof record?.detail === 'string' && record.detail
      ? record.detail
      : `The server answered ${response.status} ${response.statusText}.`
  const retryHeader = Number(response.headers.get('Retry-After'))
  const error = new ApiError(
    response.status,
    detail,
    record,
    Number.isFinite(retryHeader) && retryHeader > 0 ? retryHeader : null,
  )
  if (response.status === 401 && !publicPaths.has(path)) onSessionLost?.()
  throw error
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.detail
  return error instanceof Error ? error.message : String(error)
}

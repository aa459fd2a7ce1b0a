export interface QueryResult<R> {
  rows: R[]
  rowCount: number
}

/** Something SQL can run on: the database itself or an open transaction. */
export interface Queryable {
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>>
}

export interface ListenOptions {
  /** Called after the notification connection was lost and re-established (notifications may have been missed). */
  onReconnect?: () => void
}

export interface Database extends Queryable {
  readonly driver: 'pg' | 'pglite'
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /** Subscribes to a NOTIFY channel; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void, options?: ListenOptions): Promise<() => Promise<void>>
  notify(channel: string, payload: string): Promise<void>
  close(): Promise<void>
}

export class DatabaseUnavailableError extends Error {
  readonly statusCode = 503
  constructor(cause?: unknown) {
    super('The database is unavailable; try again shortly.', { cause })
    this.name = 'DatabaseUnavailableError'
  }
}

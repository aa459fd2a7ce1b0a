export interface QueryResult<R> {
  rows: R[]
  rowCount: number
}

/** Something SQL can run on: the database itself or an open transaction. */
export interface Queryable {
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>>
  /**
   * Bulk load: `COPY table (columns) FROM` rows in text format, each a line without its newline, values joined
   * by tabs and escaped with copyText. Streamed, and many times faster than INSERT. Resolves to the rows copied.
   */
  copyFrom(table: string, columns: string[], rows: AsyncIterable<string> | Iterable<string>): Promise<number>
  /**
   * Bulk read: the output of `COPY (query) TO STDOUT` in text format as byte chunks (rows may straddle chunks; read
   * them with CopyTextReader). Streamed with back-pressure on the server; the embedded database returns the whole
   * output as one chunk, so bound the query there. COPY takes no parameters: `query` must be constant SQL.
   */
  copyTo(query: string): AsyncIterable<Buffer>
}

/** One value in COPY text format: \N for null; backslash, tab, newline and carriage return escaped. */
export function copyText(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '\\N'
  return String(value).replace(/[\\\t\n\r]/g, (ch) => (ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : '\\\\'))
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

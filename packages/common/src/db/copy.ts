/** Identifiers of a COPY statement, quoted as PostgreSQL requires (the caller's names are code, not input). */
export function copyStatement(table: string, columns: string[], source: string): string {
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
  return `COPY ${quote(table)} (${columns.map(quote).join(', ')}) FROM ${source}`
}

/** Groups rows into newline-terminated chunks of about `bytes` characters: fewer, larger writes. */
export async function* copyChunks(rows: AsyncIterable<string> | Iterable<string>, bytes: number): AsyncGenerator<string> {
  let parts: string[] = []
  let size = 0
  for await (const row of rows) {
    parts.push(row, '\n')
    size += row.length + 1
    if (size >= bytes) {
      yield parts.join('')
      parts = []
      size = 0
    }
  }
  if (size > 0) yield parts.join('')
}

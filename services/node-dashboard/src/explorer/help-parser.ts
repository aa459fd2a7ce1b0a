export interface RpcCommand {
  name: string
  /** The argument synopsis after the name, e.g. `"blockhash" ( verbosity )`; "" when none. */
  args: string
}

export interface RpcCategory {
  name: string
  methods: RpcCommand[]
}

/** Help replies above this size are refused: Core's whole listing is about 7 KB, its longest page (getpeerinfo) 8 KB. */
export const HELP_REPLY_BYTES = 256 * 1024

const HEADER_MARK = '=='

/** "== Name ==" -> "Name"; null when the line is not a category header. */
function headerName(line: string): string | null {
  if (line.length <= 2 * HEADER_MARK.length || !line.startsWith(HEADER_MARK) || !line.endsWith(HEADER_MARK)) return null
  return line.slice(HEADER_MARK.length, -HEADER_MARK.length).trim()
}

/**
 * Parses the `help` listing: "== Category ==" headers, then one line per method whose first word
 * is the method name and the rest its argument synopsis. Lines before any header go to "Other".
 * String work and one-character searches only: a hostile node's listing costs one pass.
 */
export function parseHelpListing(text: string): RpcCategory[] {
  const categories: RpcCategory[] = []
  let current: RpcCategory | null = null
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line) continue
    const header = headerName(line)
    if (header !== null) {
      current = { name: header, methods: [] }
      categories.push(current)
      continue
    }
    const space = line.search(/\s/)
    if (!current) {
      current = { name: 'Other', methods: [] }
      categories.push(current)
    }
    current.methods.push(
      space < 0 ? { name: line, args: '' } : { name: line.slice(0, space), args: line.slice(space).trimStart() },
    )
  }
  return categories.filter((c) => c.methods.length > 0)
}

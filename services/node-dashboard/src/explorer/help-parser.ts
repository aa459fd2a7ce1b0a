export interface RpcCommand {
  name: string
  /** The argument synopsis after the name, e.g. `"blockhash" ( verbosity )`; "" when none. */
  args: string
}

export interface RpcCategory {
  name: string
  methods: RpcCommand[]
}

/**
 * Parses the `help` listing: "== Category ==" headers, then one line per method whose first word
 * is the method name and the rest its argument synopsis. Lines before any header go to "Other".
 */
export function parseHelpListing(text: string): RpcCategory[] {
  const categories: RpcCategory[] = []
  let current: RpcCategory | null = null
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (!line) continue
    const header = /^==\s*(.+?)\s*==$/.exec(line)
    if (header) {
      current = { name: header[1], methods: [] }
      categories.push(current)
      continue
    }
    const match = /^(\S+)\s*(.*)$/.exec(line)
    if (!match) continue
    if (!current) {
      current = { name: 'Other', methods: [] }
      categories.push(current)
    }
    current.methods.push({ name: match[1], args: match[2] })
  }
  return categories.filter((c) => c.methods.length > 0)
}

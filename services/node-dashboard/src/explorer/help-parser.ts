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

export interface RpcArgument {
  /** 1-based position in `params`. */
  position: number
  name: string
  /** As the node writes it: string, numeric, boolean, amount, json object, "numeric or string"... */
  type: string
  required: boolean
  /** The default as the node describes it (text, not a value); null when it names none. */
  default: string | null
  description: string
}

/** More arguments than a call may carry params (100) means the page is not a node's help. */
const MAX_ARGUMENTS = 100

/** "(type, required|optional[, default=...])" at the start of `text`: its inside and where it ends; null if absent. */
function parenthesised(text: string): { inside: string; end: number } | null {
  if (!text.startsWith('(')) return null
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++
    else if (text[i] === ')' && --depth === 0) return { inside: text.slice(1, i), end: i + 1 }
  }
  return null
}

/** "1. name   (type, ...) description" -> its parts; null for any other line. */
function argumentLine(line: string): RpcArgument {
  const dot = line.indexOf('. ')
  const position = Number(line.slice(0, dot))
  const rest = line.slice(dot + 2).trimStart()
  const space = rest.search(/\s/)
  const name = space < 0 ? rest : rest.slice(0, space)
  const after = space < 0 ? '' : rest.slice(space).trimStart()
  const paren = parenthesised(after)
  const parts = (paren?.inside ?? '').split(', ')
  const defaultAt = parts.findIndex((part) => part.startsWith('default='))
  return {
    position,
    name,
    type: parts[0] ?? '',
    required: parts[1] === 'required',
    default: defaultAt < 0 ? null : parts.slice(defaultAt).join(', ').slice('default='.length),
    description: (paren ? after.slice(paren.end) : after).trim(),
  }
}

const isArgumentStart = (line: string) => {
  const dot = line.indexOf('. ')
  return dot > 0 && dot <= 3 && /^\d+$/.test(line.slice(0, dot))
}
// Lines that draw a JSON argument's shape ({, [, "key": ..., ...) rather than continue its description.
const isShapeLine = (trimmed: string) =>
  /^[[\]{}]/.test(trimmed) || trimmed.startsWith('...') || (trimmed.startsWith('"') && /^"[^"]*"\s*:/.test(trimmed))

/**
 * The `Arguments:` section of `help <method>`: each numbered argument with its type, whether it is required, its
 * default and its description (continuation lines joined; the drawn shape of JSON arguments left to the help text).
 * Line by line with string searches: a hostile page costs one pass.
 */
export function parseHelpArguments(text: string): RpcArgument[] {
  const lines = text.split('\n')
  const start = lines.findIndex((line) => line.trim() === 'Arguments:')
  if (start < 0) return []
  const args: RpcArgument[] = []
  // Once an argument's shape starts, the lines after it describe its members, not the argument.
  let inShape = false
  for (let i = start + 1; i < lines.length && lines[i].trim() !== ''; i++) {
    const line = lines[i]
    if (isArgumentStart(line)) {
      if (args.length === MAX_ARGUMENTS) break
      args.push(argumentLine(line))
      inShape = false
      continue
    }
    const trimmed = line.trim()
    inShape ||= isShapeLine(trimmed)
    const last = args.at(-1)
    if (last && !inShape && /^\s/.test(line) && last.description.length < 4096) {
      last.description = last.description ? `${last.description} ${trimmed}` : trimmed
    }
  }
  return args
}

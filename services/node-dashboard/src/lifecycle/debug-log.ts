/**
 * The tail of the node's debug.log on the node host, read over SSH after a failed start: the path comes
 * from bitcoin.conf (datadir and chain, like bitcoind: <datadir>/[<chain dir>/]debug.log), the read is
 * bounded (the last 64 KiB, at most 200 lines) and control characters are escaped before anyone sees them.
 */

import { ConfError, parseConf } from '../node-config/conf-text.ts'
import { shellQuote } from '../ssh/command.ts'

export const DEBUG_LOG_MAX_BYTES = 65_536
export const DEBUG_LOG_MAX_LINES = 200

export interface DebugLog {
  path: string
  lines: string[]
  /** Older lines were left out (the file is longer than 64 KiB or 200 lines). */
  truncated: boolean
  /** The log asks for -reindex ("Please restart with -reindex", "Corrupted block database detected"). */
  reindex_suggested: boolean
}

const CHAIN_DIRS: Record<string, string> = {
  main: '',
  test: 'testnet3',
  testnet4: 'testnet4',
  signet: 'signet',
  regtest: 'regtest',
}

/**
 * Where bitcoind writes debug.log for this config text: `datadir` (or "$HOME/.bitcoin") and the chain's
 * subdirectory; a `debuglogfile` setting is honoured when absolute. Null when the text does not parse.
 */
export function debugLogLocation(confText: string): { dir: string | null; file: string } | null {
  let lines: ReturnType<typeof parseConf>
  try {
    lines = parseConf(confText)
  } catch (error) {
    if (error instanceof ConfError) return null
    throw error
  }
  const top = (key: string) => lines.filter((l) => l.section === '' && l.key === key).at(-1)?.value
  const chain =
    top('chain') ??
    (top('regtest') === '1'
      ? 'regtest'
      : top('testnet4') === '1'
        ? 'testnet4'
        : top('testnet') === '1'
          ? 'test'
          : top('signet') === '1'
            ? 'signet'
            : 'main')
  const sub = CHAIN_DIRS[chain] ?? chain
  const inChain = (key: string) => lines.filter((l) => (l.section === '' || l.section === chain) && l.key === key).at(-1)?.value
  const logFile = inChain('debuglogfile')
  if (logFile?.startsWith('/')) return { dir: null, file: logFile }
  const datadir = top('datadir') || null
  const name = logFile || 'debug.log'
  return { dir: datadir, file: [sub, name].filter(Boolean).join('/') }
}

/** The displayed path: the default datadir is shown as ~/.bitcoin. */
export function debugLogPath(location: { dir: string | null; file: string }): string {
  if (location.dir === null && location.file.startsWith('/')) return location.file
  return `${location.dir ?? '~/.bitcoin'}/${location.file}`
}

/**
 * Prints the file's size on the first line, then its last 64 KiB cut to the last 201 lines (one more than
 * shown, to tell a longer file), or exits 2 when it is not a regular file.
 */
export function tailDebugLogCommand(location: { dir: string | null; file: string }): string {
  const target =
    location.dir === null && location.file.startsWith('/')
      ? shellQuote(location.file)
      : `${location.dir === null ? '"$HOME"/.bitcoin' : shellQuote(location.dir)}/${shellQuote(location.file)}`
  return [
    `f=${target}`,
    `[ -f "$f" ] || exit 2`,
    `wc -c < "$f"`,
    `tail -c ${DEBUG_LOG_MAX_BYTES} -- "$f" | tail -n ${DEBUG_LOG_MAX_LINES + 1}`,
  ].join('\n')
}

// C0 controls but tab, DEL and the C1 range: shown as \xNN so a log cannot drive a terminal or the page.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g
const escapeControls = (line: string) => line.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)

const REINDEX_HINTS = ['Please restart with -reindex', 'Corrupted block database detected']

/** The tail command's output as a DebugLog; null when it is not the expected shape. */
export function parseDebugLogTail(path: string, stdout: string): DebugLog | null {
  const newline = stdout.indexOf('\n')
  const size = Number(stdout.slice(0, newline).trim())
  if (newline === -1 || !Number.isInteger(size) || size < 0) return null
  let lines = stdout.slice(newline + 1).split('\n')
  if (lines.at(-1) === '') lines.pop()
  let truncated = false
  // A file longer than the window starts mid-line: that partial first line is dropped.
  if (size > DEBUG_LOG_MAX_BYTES) {
    lines = lines.slice(1)
    truncated = true
  }
  if (lines.length > DEBUG_LOG_MAX_LINES) {
    lines = lines.slice(-DEBUG_LOG_MAX_LINES)
    truncated = true
  }
  const escaped = lines.map(escapeControls)
  return {
    path,
    lines: escaped,
    truncated,
    reindex_suggested: escaped.some((line) => REINDEX_HINTS.some((hint) => line.includes(hint))),
  }
}

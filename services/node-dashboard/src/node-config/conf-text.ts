/**
 * bitcoin.conf as bitcoind reads it (common/config.cpp): one `key=value` per line, `#` starts a comment,
 * `[main]`/`[test]`/`[testnet4]`/`[signet]`/`[regtest]` open a section for that chain. This module masks
 * the secrets for display, puts them back on save, and checks the values of the common options with
 * bitcoind's own rules, so a typo is a 422 naming its line instead of a node that will not start.
 */
import { isIP, isIPv4 } from 'node:net'

export const CONF_SECRET_MASK = '********'
export const CHAINS = ['main', 'test', 'testnet4', 'signet', 'regtest'] as const

export interface ConfLine {
  /** 1-based, as bitcoind's "parse error on line N". */
  number: number
  section: string
  key: string
  value: string
}

export class ConfError extends Error {
  constructor(
    readonly line: number | null,
    message: string,
  ) {
    super(line === null ? message : `line ${line}: ${message}`)
    this.name = 'ConfError'
  }
}

const SECRET_KEYS = new Set(['rpcpassword', 'rpcauth'])

/** The settings lines of `text` (comments, blanks and section headers left out); throws ConfError. */
export function parseConf(text: string): ConfLine[] {
  const lines: ConfLine[] = []
  let section = ''
  const raw = text.split('\n')
  for (let i = 0; i < raw.length; i++) {
    const number = i + 1
    const hash = raw[i].indexOf('#')
    const line = (hash === -1 ? raw[i] : raw[i].slice(0, hash)).trim()
    if (line === '') continue
    if (line.startsWith('[')) {
      if (!line.endsWith(']')) throw new ConfError(number, `a section header must end with "]": ${line}`)
      section = line.slice(1, -1).trim()
      if (!(CHAINS as readonly string[]).includes(section)) {
        throw new ConfError(number, `unknown section [${section}] (one of ${CHAINS.join(', ')})`)
      }
      continue
    }
    const eq = line.indexOf('=')
    if (eq === -1) throw new ConfError(number, `expected key=value, got "${line.slice(0, 80)}"`)
    const key = line.slice(0, eq).trim()
    if (key === '' || key.startsWith('-')) throw new ConfError(number, `a setting name cannot be empty or start with "-"`)
    const value = line.slice(eq + 1).trim()
    // bitcoind refuses this case itself: "using # in rpcpassword can be ambiguous and should be avoided".
    if (hash !== -1 && key === 'rpcpassword') throw new ConfError(number, 'rpcpassword cannot contain "#"')
    lines.push({ number, section, key, value })
  }
  return lines
}

/** What a stored secret line shows: rpcpassword entirely, rpcauth after its user name. */
function maskedValue(key: string, value: string): string {
  if (key === 'rpcauth') {
    const colon = value.indexOf(':')
    return colon === -1 ? CONF_SECRET_MASK : `${value.slice(0, colon)}:${CONF_SECRET_MASK}`
  }
  return CONF_SECRET_MASK
}

/** Rewrites the value of each rpcpassword/rpcauth line, keeping everything else byte for byte. */
function mapSecretLines(text: string, map: (key: string, value: string, nth: number) => string): string {
  const seen = new Map<string, number>()
  let section = ''
  return text
    .split('\n')
    .map((raw) => {
      const trimmed = raw.trim()
      if (trimmed.startsWith('[') && trimmed.includes(']')) section = trimmed.slice(1, trimmed.indexOf(']')).trim()
      const eq = raw.indexOf('=')
      const hash = raw.indexOf('#')
      if (eq === -1 || (hash !== -1 && hash < eq)) return raw
      const key = raw.slice(0, eq).trim()
      if (!SECRET_KEYS.has(key)) return raw
      const end = hash === -1 ? raw.length : hash
      const value = raw.slice(eq + 1, end).trim()
      const slot = `${section}\0${key}`
      const nth = seen.get(slot) ?? 0
      seen.set(slot, nth + 1)
      return `${raw.slice(0, eq + 1)}${map(`${slot}`, value, nth)}${raw.slice(end)}`
    })
    .join('\n')
}

/** The text with secrets masked (for the app); `secretCount` tells whether any was found. */
export function maskSecrets(text: string): { text: string; secretCount: number } {
  let secretCount = 0
  const masked = mapSecretLines(text, (slot, value) => {
    secretCount++
    return maskedValue(slot.slice(slot.indexOf('\0') + 1), value)
  })
  return { text: masked, secretCount }
}

/**
 * The edited text with each still-masked secret replaced by the stored value it stood for: the n-th
 * rpcpassword of a section keeps the n-th stored one, an rpcauth keeps the stored line of the same user.
 * A masked value with no stored counterpart is a ConfError (it would write the mask itself).
 */
export function restoreSecrets(edited: string, stored: string): string {
  const byPosition = new Map<string, string>()
  const authByUser = new Map<string, string>()
  mapSecretLines(stored, (slot, value, nth) => {
    byPosition.set(`${slot}\0${nth}`, value)
    if (slot.endsWith('\0rpcauth')) authByUser.set(`${slot}\0${value.slice(0, value.indexOf(':'))}`, value)
    return value
  })
  let missing = false
  const restored = mapSecretLines(edited, (slot, value, nth) => {
    if (!value.endsWith(CONF_SECRET_MASK)) return value
    const key = slot.slice(slot.indexOf('\0') + 1)
    const kept =
      key === 'rpcauth'
        ? authByUser.get(`${slot}\0${value.slice(0, value.indexOf(':'))}`)
        : value === CONF_SECRET_MASK
          ? byPosition.get(`${slot}\0${nth}`)
          : undefined
    if (kept === undefined) missing = true
    return kept ?? value
  })
  if (missing) throw new ConfError(null, `a masked secret (${CONF_SECRET_MASK}) has no stored value to keep: type the new one`)
  return restored
}

const INTEGER = /^-?\d{1,12}$/

function integer(line: ConfLine, min: number, why: string): number {
  if (!INTEGER.test(line.value)) throw new ConfError(line.number, `${line.key} must be a whole number`)
  const n = Number(line.value)
  if (n < min) throw new ConfError(line.number, `${line.key} ${why}`)
  return n
}

function boolean(line: ConfLine): boolean {
  // bitcoind reads "true" as 0 (atoi): refuse anything but 0 and 1 rather than let that surprise anyone.
  if (line.value !== '0' && line.value !== '1') throw new ConfError(line.number, `${line.key} must be 0 or 1`)
  return line.value === '1'
}

function address(line: ConfLine, allowSubnet: boolean): void {
  let host = line.value
  if (allowSubnet) {
    const slash = host.indexOf('/')
    if (slash !== -1) {
      const mask = host.slice(slash + 1)
      host = host.slice(0, slash)
      const bits = isIP(host) === 6 ? 128 : isIP(host) === 4 ? 32 : 0
      const okMask = /^\d{1,3}$/.test(mask) ? Number(mask) <= bits : bits === 32 && isIPv4(mask)
      if (!bits || !okMask) throw new ConfError(line.number, `${line.key} must be an IP address or subnet, got "${line.value}"`)
      return
    }
  } else {
    // rpcbind: host, host:port or [v6]:port.
    const bracket = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(host)
    if (bracket) host = bracket[1]
    else if (host.split(':').length === 2) host = host.slice(0, host.indexOf(':'))
  }
  if (isIP(host) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(host)) {
    throw new ConfError(line.number, `${line.key} must be an address, got "${line.value}"`)
  }
  if (allowSubnet && isIP(host) === 0) {
    throw new ConfError(line.number, `${line.key} must be an IP address or subnet, got "${line.value}"`)
  }
}

/** The common options the app offers as fields, with bitcoind's value rules. */
const RULES: Record<string, (line: ConfLine) => void> = {
  prune: (l) => {
    const n = integer(l, 0, 'cannot be negative')
    if (n > 1 && n < 550) throw new ConfError(l.number, 'prune below the minimum of 550 MiB (0 = off, 1 = manual pruning)')
  },
  dbcache: (l) => void integer(l, 4, 'must be at least 4 (MiB)'),
  maxconnections: (l) => void integer(l, 0, 'cannot be negative'),
  maxmempool: (l) => void integer(l, 5, 'must be at least 5 (MB)'),
  txindex: boolean,
  blocksonly: boolean,
  server: boolean,
  listen: boolean,
  disablewallet: boolean,
  regtest: boolean,
  testnet: boolean,
  testnet4: boolean,
  signet: boolean,
  chain: (l) => {
    if (!(CHAINS as readonly string[]).includes(l.value))
      throw new ConfError(l.number, `chain must be one of ${CHAINS.join(', ')}`)
  },
  datadir: (l) => {
    if (!l.value.startsWith('/')) throw new ConfError(l.number, 'datadir must be an absolute path')
  },
  rpcbind: (l) => address(l, false),
  rpcallowip: (l) => address(l, true),
  rpcport: (l) => {
    const n = integer(l, 1, 'must be a port (1-65535)')
    if (n > 65535) throw new ConfError(l.number, 'rpcport must be a port (1-65535)')
  },
  wallet: (l) => {
    if (l.value === '') throw new ConfError(l.number, 'wallet needs a name')
  },
}

export const COMMON_OPTIONS = Object.keys(RULES)

/** Checks every common option and the combinations bitcoind refuses at start; throws ConfError. */
export function validateConf(lines: ConfLine[]): void {
  for (const line of lines) RULES[line.key]?.(line)
  const top = lines.filter((l) => l.section === '')
  const networks = top.filter(
    (l) => (['regtest', 'testnet', 'testnet4', 'signet'].includes(l.key) && l.value === '1') || l.key === 'chain',
  )
  if (networks.length > 1) {
    throw new ConfError(networks[1].number, 'at most one of regtest, testnet, testnet4, signet and chain may select the network')
  }
  const last = (key: string) => top.filter((l) => l.key === key).at(-1)
  const prune = last('prune')
  const txindex = last('txindex')
  if (prune && prune.value !== '0' && txindex?.value === '1') {
    throw new ConfError(txindex.number, 'txindex=1 is incompatible with prune (bitcoind refuses to start)')
  }
}

/** The text's common options (top section, last value wins), for the form. */
export function commonOptions(lines: ConfLine[]): Record<string, string> {
  const options: Record<string, string> = {}
  for (const line of lines)
    if (line.section === '' && line.key in RULES && !SECRET_KEYS.has(line.key)) options[line.key] = line.value
  return options
}

import { isIPv4, isIPv6 } from 'node:net'

// Core's CNetAddr/CSubNet for the IPv4 and IPv6 literals setban takes (no DNS, no onion/i2p names).

export interface NetAddr {
  /** 4 bytes (IPv4, IPv4-mapped IPv6 included) or 16 (IPv6). */
  bytes: number[]
}

export interface SubNet {
  network: NetAddr
  /** Prefix length in bits. */
  bits: number
}

function ipv6Bytes(text: string): number[] {
  let [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const words = (part: string | undefined) => (part ? part.split(':') : [])
  const last = (tail ?? head).split(':').at(-1) ?? ''
  const v4 = isIPv4(last) ? last.split('.').map(Number) : null
  if (v4) {
    if (tail !== undefined) tail = tail.split(':').slice(0, -1).join(':')
    else head = head.split(':').slice(0, -1).join(':')
  }
  const front = words(head)
  const back = words(tail)
  const fill = 8 - (v4 ? 2 : 0) - front.length - back.length
  const all = [...front, ...Array(tail === undefined ? 0 : fill).fill('0'), ...back].map((w) => Number.parseInt(w, 16))
  const bytes = all.flatMap((w) => [w >> 8, w & 0xff])
  return v4 ? [...bytes, ...v4] : bytes
}

/** LookupHost(name, false): a numeric IPv4 or IPv6 address, optionally in brackets; null when it is not one. */
export function parseNetAddr(text: string): NetAddr | null {
  const host = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  if (isIPv4(host)) return { bytes: host.split('.').map(Number) }
  if (!isIPv6(host) || host.includes('%')) return null
  const bytes = ipv6Bytes(host)
  // IPv4-mapped addresses are IPv4 to Core.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return { bytes: bytes.slice(12) }
  return { bytes }
}

/** CNetAddr::IsValid for these two networks: not unspecified, not INADDR_NONE, not IPv6 documentation space. */
export function isValidAddr(addr: NetAddr): boolean {
  const b = addr.bytes
  if (b.every((x) => x === 0)) return false
  if (b.length === 4) return !b.every((x) => x === 255)
  return !(b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8)
}

function maskBitsOf(mask: NetAddr): number | null {
  let bits = 0
  let ended = false
  for (const byte of mask.bytes) {
    for (let i = 7; i >= 0; i--) {
      const set = (byte >> i) & 1
      if (set && ended) return null
      if (set) bits++
      else ended = true
    }
  }
  return bits
}

/** LookupSubNet: "addr/bits" or "addr/netmask" (the network is masked); null when invalid. */
export function parseSubNet(text: string): SubNet | null {
  const slash = text.indexOf('/')
  const address = slash === -1 ? text : text.slice(0, slash)
  const network = parseNetAddr(address)
  if (!network || !isValidAddr(network)) return null
  const width = network.bytes.length * 8
  let bits = width
  if (slash !== -1) {
    const suffix = text.slice(slash + 1)
    if (/^\d{1,3}$/.test(suffix)) bits = Number(suffix)
    else {
      const mask = parseNetAddr(suffix)
      const maskBits = mask && mask.bytes.length === network.bytes.length ? maskBitsOf(mask) : null
      if (maskBits === null) return null
      bits = maskBits
    }
    if (bits > width) return null
  }
  const bytes = network.bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8))
    return byte & ((0xff << (8 - keep)) & 0xff)
  })
  return { network: { bytes }, bits }
}

export function singleSubNet(addr: NetAddr): SubNet {
  return { network: addr, bits: addr.bytes.length * 8 }
}

export function subNetMatches(subnet: SubNet, addr: NetAddr): boolean {
  if (subnet.network.bytes.length !== addr.bytes.length) return false
  return addr.bytes.every((byte, i) => {
    const keep = Math.max(0, Math.min(8, subnet.bits - i * 8))
    const mask = (0xff << (8 - keep)) & 0xff
    return (byte & mask) === subnet.network.bytes[i]
  })
}

export function formatAddr(addr: NetAddr): string {
  if (addr.bytes.length === 4) return addr.bytes.join('.')
  const words = Array.from({ length: 8 }, (_, i) => ((addr.bytes[2 * i] << 8) | addr.bytes[2 * i + 1]).toString(16))
  // RFC 5952: the longest run of two or more zero words becomes "::".
  let best = { start: -1, length: 0 }
  for (let i = 0; i < 8; ) {
    if (words[i] !== '0') {
      i++
      continue
    }
    let j = i
    while (j < 8 && words[j] === '0') j++
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i }
    i = j
  }
  if (best.start === -1) return words.join(':')
  return `${words.slice(0, best.start).join(':')}::${words.slice(best.start + best.length).join(':')}`
}

/** CSubNet::ToString: "network/bits". */
export function formatSubNet(subnet: SubNet): string {
  return `${formatAddr(subnet.network)}/${subnet.bits}`
}

/** Core's banmap order (CSubNet operator<): IPv4 before IPv6, then network bytes, then prefix. */
export function compareSubNets(a: SubNet, b: SubNet): number {
  if (a.network.bytes.length !== b.network.bytes.length) return a.network.bytes.length - b.network.bytes.length
  for (let i = 0; i < a.network.bytes.length; i++) {
    if (a.network.bytes[i] !== b.network.bytes[i]) return a.network.bytes[i] - b.network.bytes[i]
  }
  return a.bits - b.bits
}

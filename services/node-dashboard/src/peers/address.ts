import { isIPv4, isIPv6 } from 'node:net'

/** The longest IP/subnet text accepted (a full IPv6 address with a prefix is 43 characters). */
export const MAX_BAN_ADDRESS_LENGTH = 64

/**
 * What setban takes, checked before the node sees it: an IPv4 or IPv6 address, optionally with a
 * "/prefix" (0-32, 0-128). Returns why it is refused, or null. The node still has the last word
 * (it refuses, say, 0.0.0.0 or documentation space with its own -30 error).
 */
export function banAddressProblem(text: string): string | null {
  if (text.length === 0 || text.length > MAX_BAN_ADDRESS_LENGTH) {
    return `address must be 1 to ${MAX_BAN_ADDRESS_LENGTH} characters`
  }
  const slash = text.indexOf('/')
  const host = slash === -1 ? text : text.slice(0, slash)
  const v4 = isIPv4(host)
  // A zone index (fe80::1%eth0) names an interface of this host, not a peer.
  if (!v4 && !(isIPv6(host) && !host.includes('%'))) {
    return 'address must be an IPv4 or IPv6 address, optionally with a /prefix (e.g. 203.0.113.7 or 2001:db8::/32)'
  }
  if (slash === -1) return null
  const prefix = text.slice(slash + 1)
  const max = v4 ? 32 : 128
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `the prefix after "/" must be a whole number from 0 to ${max}`
  return null
}

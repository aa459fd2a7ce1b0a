import { compareSubNets, formatSubNet, type NetAddr, parseNetAddr, type SubNet, singleSubNet, subNetMatches } from './netaddr.ts'

/** Core's -bantime default (DEFAULT_MISBEHAVING_BANTIME), used when setban is given 0 or nothing. */
export const DEFAULT_BAN_SECONDS = 60 * 60 * 24

export interface SimulatedPeer {
  id: number
  addr: string
  inbound: boolean
  conntime: number
}

interface BanEntry {
  subnet: SubNet
  created: number
  until: number
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

/** Connected peers and the ban list (Core's CConnman node list and BanMan), in memory. */
export class PeerTable {
  private peers: SimulatedPeer[]
  private nextId: number
  private readonly bans = new Map<string, BanEntry>()

  constructor(count: number, startedAt: number) {
    const inbound = Math.floor(count / 2)
    const conntime = Math.floor(startedAt / 1000)
    this.peers = Array.from({ length: count }, (_, id) => ({
      id,
      addr: `127.0.0.${id + 2}:18444`,
      inbound: id < inbound,
      conntime,
    }))
    this.nextId = count
  }

  get connected(): readonly SimulatedPeer[] {
    return this.peers
  }

  /** A peer connecting (tests and the demo node); it gets the next id, as in Core. */
  connect(addr: string, inbound: boolean): SimulatedPeer {
    const peer = { id: this.nextId++, addr, inbound, conntime: nowSeconds() }
    this.peers.push(peer)
    return peer
  }

  /** CConnman::DisconnectNode(name): the peer whose address string is exactly this. */
  disconnectByAddress(addr: string): boolean {
    return this.drop((p) => p.addr === addr) > 0
  }

  disconnectById(id: number): boolean {
    return this.drop((p) => p.id === id) > 0
  }

  /** CConnman::DisconnectNode(subnet): every peer inside it. */
  disconnectSubNet(subnet: SubNet): void {
    this.drop((p) => {
      const addr = peerAddress(p.addr)
      return addr !== null && subNetMatches(subnet, addr)
    })
  }

  private drop(match: (p: SimulatedPeer) => boolean): number {
    const before = this.peers.length
    this.peers = this.peers.filter((p) => !match(p))
    return before - this.peers.length
  }

  private sweep(now = nowSeconds()) {
    for (const [key, ban] of this.bans) if (now >= ban.until) this.bans.delete(key)
  }

  /** BanMan::IsBanned(CNetAddr): inside any ban that has not expired. */
  isAddressBanned(addr: NetAddr): boolean {
    const now = nowSeconds()
    return [...this.bans.values()].some((b) => now < b.until && subNetMatches(b.subnet, addr))
  }

  /** BanMan::IsBanned(CSubNet): this exact subnet is banned and not expired. */
  isSubNetBanned(subnet: SubNet): boolean {
    const ban = this.bans.get(formatSubNet(subnet))
    return ban !== undefined && nowSeconds() < ban.until
  }

  /** BanMan::Ban: bantime <= 0 (relative) is the default 24 h. */
  ban(subnet: SubNet, bantime: number, absolute: boolean): void {
    const created = nowSeconds()
    const relative = bantime <= 0 ? DEFAULT_BAN_SECONDS : bantime
    this.bans.set(formatSubNet(subnet), { subnet, created, until: absolute ? bantime : created + relative })
  }

  /** BanMan::Unban: only an exact entry is lifted. */
  unban(subnet: SubNet): boolean {
    return this.bans.delete(formatSubNet(subnet))
  }

  clearBans(): void {
    this.bans.clear()
  }

  /** BanMan::GetBanned: expired entries are swept first; the order is banmap_t's. */
  listBans(): { address: string; ban_created: number; banned_until: number; ban_duration: number; time_remaining: number }[] {
    const now = nowSeconds()
    this.sweep(now)
    return [...this.bans.values()]
      .sort((a, b) => compareSubNets(a.subnet, b.subnet))
      .map((b) => ({
        address: formatSubNet(b.subnet),
        ban_created: b.created,
        banned_until: b.until,
        ban_duration: b.until - b.created,
        time_remaining: b.until - now,
      }))
  }
}

/** The address part of a peer's "host:port" or "[v6]:port". */
function peerAddress(hostPort: string): NetAddr | null {
  const host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.split(':')[0]
  return parseNetAddr(host)
}

export { singleSubNet }

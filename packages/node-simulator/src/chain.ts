import { createHash } from 'node:crypto'
import type { NodeVersion } from './help.ts'
import { PeerTable } from './peers.ts'
import { sats, type UniValue } from './univalue.ts'

// Values of the captured regtest node (captured/raw/*.body): 101 blocks mined to wallet w1, one tx in the mempool.
const BASE_HEIGHT = 101
const KNOWN_HASHES: Record<number, string> = {
  0: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
  100: '3a11aa64289101a34dd791de2bf911bdf6e41989f419903628f30cdfaf8bef13',
  101: '082c6f691629b0bd2cefa1d1f4b8977aa0323fe42132dc35af96e95310cf5798',
}
const BASE_TIME = 1795239461
const BITS = '207fffff'
const TARGET = '7fffff0000000000000000000000000000000000000000000000000000000000'
const DIFFICULTY = 4.656542373906925e-10
// The regtest genesis block's timestamp.
const GENESIS_TIME = 1296688602
/** The captured mempool transaction (1 P2WPKH input, 2 outputs): every simulated transaction is one like it. */
export const TX = { vsize: 141, size: 222, weight: 561, usage: 1200, fee: 1410 }

export interface ChainOptions {
  /** A new block every this many ms (0: only mine() adds blocks). */
  blockIntervalMs: number
  /** A new mempool transaction every this many ms (0: only addTransactions()). */
  txIntervalMs: number
  /** Connected peers (the capture had none); with peers, traffic totals grow. */
  peers: number
  version: NodeVersion
}

/** The moving part of the simulated node: blocks, mempool and traffic advance with the clock. */
export class Chain {
  readonly startedAt = Date.now()
  /** Blocks mined since the capture; `txs` counts the simulated transactions each confirmed (coinbase aside). */
  private readonly blocks: Array<{ hash: string; time: number; txs: number }> = []
  private clockBlocks = 0
  private lastBlockAt = this.startedAt
  private mempoolManual = 1
  /** Connected peers and bans (disconnectnode and setban change them). */
  readonly peers: PeerTable

  constructor(private readonly options: ChainOptions) {
    this.peers = new PeerTable(options.peers, this.startedAt)
  }

  /** Applies the blocks whose time has come; called before every request. */
  advance(now = Date.now()): void {
    const { blockIntervalMs } = this.options
    if (blockIntervalMs > 0) {
      const due = Math.floor((now - this.startedAt) / blockIntervalMs)
      while (this.clockBlocks < due) {
        this.clockBlocks++
        this.pushBlock(this.startedAt + this.clockBlocks * blockIntervalMs)
      }
    }
  }

  mine(count = 1): void {
    for (let i = 0; i < count; i++) this.pushBlock(Date.now())
  }

  addTransactions(count = 1): void {
    this.mempoolManual += count
  }

  private pushBlock(at: number) {
    const height = this.height + 1
    const time = Math.max(BASE_TIME + height - BASE_HEIGHT, Math.floor(at / 1000))
    this.blocks.push({ hash: blockHash(height), time, txs: this.mempoolSizeAt(at) })
    // A block confirms what was waiting.
    this.lastBlockAt = at
    this.mempoolManual = 0
  }

  get height(): number {
    return BASE_HEIGHT + this.blocks.length
  }

  get tip(): { hash: string; time: number } {
    return this.blocks.at(-1) ?? { hash: KNOWN_HASHES[BASE_HEIGHT], time: BASE_TIME }
  }

  get mempoolSize(): number {
    return this.mempoolSizeAt(Date.now())
  }

  private mempoolSizeAt(at: number): number {
    const { txIntervalMs } = this.options
    const byClock = txIntervalMs > 0 ? Math.max(0, Math.floor((at - this.lastBlockAt) / txIntervalMs)) : 0
    return this.mempoolManual + byClock
  }

  /** When each transaction now in the mempool arrived (ms), oldest first. */
  mempoolArrivals(now = Date.now()): number[] {
    const { txIntervalMs } = this.options
    const manual = Array<number>(this.mempoolManual).fill(this.lastBlockAt)
    const byClock = this.mempoolSizeAt(now) - this.mempoolManual
    return [...manual, ...Array.from({ length: byClock }, (_, i) => this.lastBlockAt + (i + 1) * txIntervalMs)]
  }

  /** The block at `height` (time and simulated transactions), or null beyond the tip. */
  blockAt(height: number): { hash: string; time: number; txs: number } | null {
    if (!Number.isInteger(height) || height < 0 || height > this.height) return null
    if (height > BASE_HEIGHT) return this.blocks[height - BASE_HEIGHT - 1]
    // The captured blocks held their coinbase only; the regtest miner mined about one a second.
    return { hash: blockHash(height), time: height === 0 ? GENESIS_TIME : BASE_TIME - (BASE_HEIGHT - height), txs: 0 }
  }

  heightOf(hash: string): number | null {
    for (let i = this.blocks.length - 1; i >= 0; i--) if (this.blocks[i].hash === hash) return BASE_HEIGHT + i + 1
    for (const [height, known] of Object.entries(KNOWN_HASHES)) if (known === hash) return Number(height)
    for (let h = 1; h < BASE_HEIGHT; h++) if (blockHash(h) === hash) return h
    return null
  }

  /** Blocks mined while this node ran (the fee estimator's view: it starts empty on every start). */
  get blocksSinceStart(): number {
    return this.blocks.length
  }

  /** Simulated transactions confirmed while this node ran. */
  get confirmedSinceStart(): number {
    return this.blocks.reduce((sum, b) => sum + b.txs, 0)
  }

  hashAt(height: number): string | null {
    if (!Number.isInteger(height) || height < 0 || height > this.height) return null
    return blockHash(height)
  }

  uptime(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000)
  }

  private traffic() {
    const seconds = (Date.now() - this.startedAt) / 1000
    const peers = this.options.peers
    return { recv: Math.floor(seconds * 1200 * peers), sent: Math.floor(seconds * 900 * peers) }
  }

  getblockchaininfo(): UniValue {
    const v30 = this.options.version === '30.0.0'
    const { hash, time } = this.tip
    return {
      chain: 'regtest',
      blocks: this.height,
      headers: this.height,
      bestblockhash: hash,
      bits: v30 ? BITS : undefined,
      target: v30 ? TARGET : undefined,
      difficulty: DIFFICULTY,
      time,
      mediantime: time - 1,
      verificationprogress: 1,
      initialblockdownload: false,
      chainwork: (2 * (this.height + 1)).toString(16).padStart(64, '0'),
      size_on_disk: 30375 + (this.height - BASE_HEIGHT) * 250,
      pruned: false,
      warnings: [],
    }
  }

  getmempoolinfo(): UniValue {
    const size = this.mempoolSize
    const v30 = this.options.version === '30.0.0'
    return {
      loaded: true,
      size,
      bytes: size * TX.vsize,
      usage: size * TX.usage,
      total_fee: sats(size * TX.fee),
      maxmempool: 300000000,
      mempoolminfee: sats(100),
      minrelaytxfee: sats(100),
      incrementalrelayfee: sats(100),
      unbroadcastcount: size,
      fullrbf: true,
      permitbaremultisig: v30 ? true : undefined,
      maxdatacarriersize: v30 ? 100000 : undefined,
    }
  }

  getmininginfo(): UniValue {
    const v30 = this.options.version === '30.0.0'
    return {
      blocks: this.height,
      currentblockweight: 8000,
      currentblocktx: 0,
      bits: v30 ? BITS : undefined,
      difficulty: DIFFICULTY,
      target: v30 ? TARGET : undefined,
      networkhashps: 4.051743094078191e-7,
      pooledtx: this.mempoolSize,
      blockmintxfee: v30 ? sats(1) : undefined,
      chain: 'regtest',
      next: v30 ? { height: this.height + 1, bits: BITS, difficulty: DIFFICULTY, target: TARGET } : undefined,
      warnings: [],
    }
  }

  getnetworkinfo(subversion: string, version: number): UniValue {
    const peers = this.peers.connected.length
    const inbound = this.peers.connected.filter((p) => p.inbound).length
    const network = (name: string, reachable: boolean) => ({
      name,
      limited: !reachable,
      reachable,
      proxy: '',
      proxy_randomize_credentials: false,
    })
    return {
      version,
      subversion,
      protocolversion: 70016,
      localservices: '0000000000000c09',
      localservicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED', 'P2P_V2'],
      localrelay: true,
      timeoffset: 0,
      networkactive: true,
      connections: peers,
      connections_in: inbound,
      connections_out: peers - inbound,
      networks: [
        network('ipv4', true),
        network('ipv6', true),
        network('onion', false),
        network('i2p', false),
        network('cjdns', false),
      ],
      relayfee: sats(100),
      incrementalfee: sats(100),
      localaddresses: [],
      warnings: [],
    }
  }

  getnettotals(): UniValue {
    const { recv, sent } = this.traffic()
    return {
      totalbytesrecv: recv,
      totalbytessent: sent,
      timemillis: Date.now(),
      uploadtarget: {
        timeframe: 86400,
        target: 0,
        target_reached: false,
        serve_historical_blocks: true,
        bytes_left_in_cycle: 0,
        time_left_in_cycle: 0,
      },
    }
  }

  getpeerinfo(): UniValue {
    // Traffic totals are shared among the peers the node started with; a peer's share varies by its id.
    const { recv, sent } = this.traffic()
    const share = Math.max(1, this.options.peers)
    const now = Math.floor(Date.now() / 1000)
    return this.peers.connected.map(({ id, addr, inbound, conntime }) => {
      const bytessent = Math.floor((sent / share) * (1 + (id % 5) / 10))
      const bytesrecv = Math.floor((recv / share) * (1 + (id % 3) / 10))
      return {
        id,
        addr,
        network: 'not_publicly_routable',
        services: '0000000000000c09',
        servicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED', 'P2P_V2'],
        relaytxes: true,
        lastsend: now,
        lastrecv: now,
        last_transaction: 0,
        last_block: this.tip.time,
        bytessent,
        bytesrecv,
        conntime,
        timeoffset: 0,
        pingtime: 0.000412 + (id % 7) / 10000,
        minping: 0.000317,
        version: 70016,
        subver: '/Satoshi:30.0.0/',
        inbound,
        bip152_hb_to: false,
        bip152_hb_from: false,
        startingheight: BASE_HEIGHT,
        presynced_headers: -1,
        synced_headers: this.height,
        synced_blocks: this.height,
        inflight: [],
        addr_relay_enabled: true,
        addr_processed: 0,
        addr_rate_limited: 0,
        permissions: [],
        minfeefilter: sats(100),
        bytessent_per_msg: { ping: bytessent },
        bytesrecv_per_msg: { pong: bytesrecv },
        connection_type: inbound ? 'inbound' : 'outbound-full-relay',
        transport_protocol_type: 'v2',
        session_id: createHash('sha256').update(`session-${id}`).digest('hex'),
      }
    })
  }
}

/** The real hashes where captured; a stable stand-in elsewhere. */
export function blockHash(height: number): string {
  return KNOWN_HASHES[height] ?? createHash('sha256').update(`simulated-regtest-block-${height}`).digest('hex')
}

export interface WalletState {
  name: string
  /** Captured w1 holds the mined coins; other wallets are empty. */
  funded: boolean
}

export function walletInfo(wallet: WalletState, chain: Chain, version: NodeVersion): UniValue {
  const legacy = version !== '30.0.0'
  return {
    walletname: wallet.name,
    walletversion: 169900,
    format: 'sqlite',
    balance: legacy ? sats(wallet.funded ? 4999998590 : 0) : undefined,
    unconfirmed_balance: legacy ? sats(0) : undefined,
    immature_balance: legacy ? sats(wallet.funded ? 500000000000 : 0) : undefined,
    txcount: wallet.funded ? 102 : 0,
    keypoololdest: legacy ? 1795239443 : undefined,
    keypoolsize: 4000,
    keypoolsize_hd_internal: 4000,
    paytxfee: sats(0),
    private_keys_enabled: true,
    avoid_reuse: false,
    scanning: false,
    descriptors: true,
    external_signer: false,
    blank: false,
    birthtime: 1795239443,
    flags: legacy ? undefined : ['last_hardened_xpub_cached', 'descriptor_wallet'],
    lastprocessedblock: { hash: chain.tip.hash, height: chain.height },
  }
}

export function walletBalances(wallet: WalletState, chain: Chain): UniValue {
  return {
    mine: {
      trusted: sats(wallet.funded ? 4999998590 : 0),
      untrusted_pending: sats(0),
      immature: sats(wallet.funded ? 500000000000 : 0),
    },
    lastprocessedblock: { hash: chain.tip.hash, height: chain.height },
  }
}

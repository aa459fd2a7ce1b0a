import { randomBytes } from 'node:crypto'
import { Chain, type NodeSimulator, startNodeSimulator } from '@app/node-simulator'
import type { NodeHost, SshStep } from '../actions/node-host.ts'

// A demo pace: a block every 30 s and a transaction every 2 s keep the charts moving at the default 15 s sampling.
const PACE = { blockIntervalMs: 30_000, txIntervalMs: 2_000, peers: 8 }
const WALLET = 'demo'
// Like bitcoind on regtest, it holds its data-directory lock a moment after its RPC port closed (restart retries meanwhile).
const LOCK_HOLD_MS = 1500
const COMMAND = 'bitcoind -daemon (the demo node, in the dashboard process)'

/** The connection settings that point the dashboard at the demo node. */
export interface DemoConnection {
  rpc_url: string
  rpc_username: string
  rpc_password: string
  rpc_wallet: string
}

export interface DemoNode extends NodeHost {
  connection(): DemoConnection
  isRunning(): boolean
  /** Starts it again after an RPC stop; like bitcoind, it fails (exit 1) while the node still runs or holds its lock. */
  start(attempts?: number): Promise<SshStep>
  /** Stops it for good (the demo switched off, the app closing). */
  close(): Promise<void>
}

/**
 * The node simulator served in process on a loopback port with credentials of its own. It keeps its
 * chain across stop and start, so blocks mined meanwhile arrive at once, like a node catching up.
 */
export async function startDemoNode(): Promise<DemoNode> {
  const user = `demo-${randomBytes(6).toString('hex')}`
  const password = randomBytes(24).toString('base64url')
  const chain = new Chain({ ...PACE, version: '30.0.0' })
  const listen = (port: number) => startNodeSimulator({ host: '127.0.0.1', port, user, password, wallets: [WALLET], chain })
  let simulator: NodeSimulator = await listen(0)
  let running = true
  let closed = false
  let lockHeld: NodeJS.Timeout | undefined
  const watch = (sim: NodeSimulator) =>
    void sim.closed.then(() => {
      if (closed) return
      lockHeld = setTimeout(() => {
        if (simulator === sim) running = false
      }, LOCK_HOLD_MS)
    })
  watch(simulator)

  return {
    connection: () => ({ rpc_url: simulator.url, rpc_username: user, rpc_password: password, rpc_wallet: WALLET }),
    isRunning: () => running,
    async start(attempts) {
      const started = performance.now()
      const step = (exit_code: number, stdout: string, stderr: string): SshStep => ({
        command: COMMAND,
        exit_code,
        stdout,
        stderr,
        duration_ms: Math.round(performance.now() - started),
        ...(attempts === undefined ? {} : { attempts }),
      })
      if (running) {
        return step(
          1,
          '',
          'Error: Cannot obtain a lock on directory of the demo node. Bitcoin Core is probably already running.\n',
        )
      }
      if (closed) return step(1, '', 'Error: the demo node is switched off.\n')
      // The same port when it is still free, so the connection in use stays valid; another one otherwise.
      const next = await listen(simulator.port).catch(() => listen(0))
      if (closed) {
        await next.close()
        return step(1, '', 'Error: the demo node is switched off.\n')
      }
      simulator = next
      running = true
      watch(next)
      return step(0, 'Bitcoin Core starting\n', '')
    },
    async close() {
      closed = true
      clearTimeout(lockHeld)
      await simulator.close()
    },
  }
}

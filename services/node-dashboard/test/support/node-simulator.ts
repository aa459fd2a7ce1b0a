import { fileURLToPath } from 'node:url'
import { main } from './simulator/daemon.ts'

// In-process use: `startNodeSimulator({...})`. As a process (what node-binary.sh runs over SSH):
// `node --import tsx test/support/node-simulator.ts -conf=<file> -daemon`, behaving like bitcoind.
export { blockHash, type Chain } from './simulator/chain.ts'
export { lockHolder } from './simulator/daemon.ts'
export { helpListing, helpPage, type NodeVersion } from './simulator/help.ts'
export { type NodeSimulator, type NodeSimulatorOptions, type RecordedCall, startNodeSimulator } from './simulator/server.ts'

const self = fileURLToPath(import.meta.url)
if (process.argv[1] && fileURLToPath(new URL(`file://${process.argv[1]}`)) === self) {
  await main(process.argv.slice(2), self)
}

// In process: `startNodeSimulator({...})`. As a process, `bin/bitcoind.sh -conf=<file> -daemon` behaves like bitcoind.
export { blockHash, Chain, type ChainOptions } from './chain.ts'
export { BITCOIND_DATA_DIR } from './help.ts'
export { type RawReply, rpc, send } from './http-client.ts'
export { createNodeHost, freePort, lockHolderOf, NODE_BINARY, type NodeHost, type RunResult } from './node-host.ts'
export { type NodeSimulator, type NodeSimulatorOptions, type RecordedCall, startNodeSimulator } from './server.ts'

import { fileURLToPath } from 'node:url'
import { main } from './daemon.ts'

// The process entry bin/bitcoind.sh runs; the daemon re-runs this file for its detached child.
await main(process.argv.slice(2), fileURLToPath(import.meta.url))

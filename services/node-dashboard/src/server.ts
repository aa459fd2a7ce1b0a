import { setFlagsFromString } from 'node:v8'
import { loadConfigOrExit, startServer } from '@app/common'
import { buildApp } from './app.ts'
import { configSchema } from './config.ts'

// V8 lets the old generation grow to about 4x the live heap before a full GC, and the history answers' 1-2 MB
// strings piled up to 100 MiB of garbage that way: 1.2x instead, no hard limit (bench/RESULTS.md). Set here so
// every launcher gets it (NODE_OPTIONS refuses the flag); one given on the command line wins.
if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) {
  setFlagsFromString('--heap-growing-percent=20')
}

const config = loadConfigOrExit('node-dashboard', configSchema)
await startServer('node-dashboard', buildApp(config), { host: config.HOST, port: config.PORT })

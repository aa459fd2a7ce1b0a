import { loadConfigOrExit, startServer } from '@app/common'
import { buildApp } from './app.ts'
import { configSchema } from './config.ts'

const config = loadConfigOrExit('node-dashboard', configSchema)
await startServer('node-dashboard', buildApp(config), { host: config.HOST, port: config.PORT })

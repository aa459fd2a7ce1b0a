import { loadConfigOrExit, startServer } from '@app/common'
import { buildApp } from './app.ts'
import { configSchema } from './config.ts'

const config = loadConfigOrExit('meme-catalog', configSchema)
await startServer('meme-catalog', buildApp(config), { host: config.HOST, port: config.PORT })

import { startServer } from '@app/common'
import app from './app.ts'
import { configSchema } from './config.ts'

await startServer({
  errors: { messageKey: 'error', validationStatus: 400 },
  name: 'meme-catalog',
  schema: configSchema,
  app,
  port: (config) => config.PORT,
})

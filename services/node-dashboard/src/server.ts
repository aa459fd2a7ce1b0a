import { startServer } from '@app/common'
import app from './app.ts'
import { configSchema } from './config.ts'

await startServer({
  errors: { messageKey: 'detail', validationStatus: 422 },
  name: 'node-dashboard',
  schema: configSchema,
  app,
  port: (config) => config.PORT,
})

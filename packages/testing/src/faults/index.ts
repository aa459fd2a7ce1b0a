export * from './private-postgres-server.ts'
export * from './restart-traffic.ts'

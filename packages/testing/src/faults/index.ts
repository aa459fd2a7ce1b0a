export * from './private-postgres-server.ts'

import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type AuditRepository, createAuditRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    audit: AuditRepository
  }
}

/** Decorates `fastify.audit`, the audit trail (see repository.ts). */
export const auditPlugin = fp(
  async function auditPlugin(fastify: FastifyInstance) {
    fastify.decorate('audit', createAuditRepository(fastify.db))
  },
  { name: 'dashboard-audit', dependencies: ['app-database'] },
)

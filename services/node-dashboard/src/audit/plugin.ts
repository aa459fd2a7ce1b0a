import { repositoryPlugin } from '@app/common'
import { type AuditRepository, createAuditRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    audit: AuditRepository
  }
}

/** Decorates `fastify.audit`, the audit trail (see repository.ts). */
export const auditPlugin = repositoryPlugin('dashboard-audit', 'audit', createAuditRepository)

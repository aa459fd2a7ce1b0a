import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { secretBox } from '../settings/crypto.ts'
import { createDispatcher } from './dispatcher.ts'
import { observe } from './rules.ts'
import { type AlertsService, createAlertsService } from './service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    alerts: AlertsService
  }
}

/**
 * Decorates `fastify.alerts` (service.ts), evaluates the rules on every round the sampler's leader
 * takes (no RPC call of its own), and runs this instance's delivery dispatcher.
 */
export const alertsPlugin = fp(
  async function alertsPlugin(fastify: FastifyInstance, { config, secret }: { config: Config; secret: string }) {
    const box = secretBox(secret)
    const policy = {
      attempts: config.ALERT_DELIVERY_ATTEMPTS,
      retryBaseMs: config.ALERT_RETRY_BASE_MS,
      timeoutMs: config.ALERT_WEBHOOK_TIMEOUT_MS,
      connectTimeoutMs: config.ALERT_WEBHOOK_CONNECT_TIMEOUT_MS,
    }
    const dispatcher = createDispatcher({ db: fastify.db, box, policy, log: fastify.log })
    const alerts = createAlertsService({ db: fastify.db, box, policy, queued: () => dispatcher.kick() })
    fastify.decorate('alerts', alerts)
    fastify.sampler.onRound((round) => alerts.evaluate(observe(round.at, round.summary, round.error)))
    fastify.addHook('onReady', async () => dispatcher.start())
    fastify.addHook('onClose', async () => dispatcher.stop())
  },
  { name: 'dashboard-alerts', dependencies: ['dashboard-summary', 'dashboard-settings'] },
)

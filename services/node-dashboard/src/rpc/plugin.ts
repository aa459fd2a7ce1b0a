import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createRpcClient, type RpcClient } from './client.ts'
import { createCookieReader } from './cookie.ts'

declare module 'fastify' {
  interface FastifyInstance {
    rpc: RpcClient
  }
}

export interface RpcPluginOptions {
  timeoutMs: number
  /** Bounds reading the node's cookie over SSH. */
  sshTimeoutMs: number
}

/** Decorates `fastify.rpc` (see client.ts), reading the node settings at every call; timed in the metrics. */
export const rpcPlugin = fp(
  async function rpcPlugin(fastify: FastifyInstance, { timeoutMs, sshTimeoutMs }: RpcPluginOptions) {
    const cookies = createCookieReader({
      sshTimeoutMs,
      recordHostKey: (fingerprint) => fastify.settingsCache.recordHostKey(fingerprint),
    })
    const settings = () => fastify.settingsCache.get()
    fastify.decorate('rpc', createRpcClient({ settings, timeoutMs, cookies, observer: fastify.prometheus.rpcObserver }))
  },
  { name: 'dashboard-rpc', dependencies: ['dashboard-settings', 'dashboard-prometheus'] },
)

import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createRpcClient, type RpcClient } from './client.ts'

declare module 'fastify' {
  interface FastifyInstance {
    rpc: RpcClient
  }
}

/** Decorates `fastify.rpc` (see client.ts), reading the node settings at every call. */
export const rpcPlugin = fp(
  async function rpcPlugin(fastify: FastifyInstance, { timeoutMs }: { timeoutMs: number }) {
    fastify.decorate('rpc', createRpcClient({ settings: () => fastify.settingsCache.get(), timeoutMs }))
  },
  { name: 'dashboard-rpc', dependencies: ['dashboard-settings'] },
)

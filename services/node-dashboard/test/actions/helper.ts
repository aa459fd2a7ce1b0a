import { NODE_BINARY, type NodeHost } from '@app/node-simulator'
import type { Sshd } from '@app/testing/ssh'
import type { FastifyInstance } from 'fastify'
import type { NodeSettingsUpdate } from '../../src/settings/repository.ts'
import { build, login } from '../helper.ts'

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface ActionsApp {
  app: FastifyInstance
  cookie: string
  post(action: 'stop' | 'start' | 'restart'): Promise<{ statusCode: number; body: any }>
  configure(settings: NodeSettingsUpdate): Promise<void>
}

/** A logged-in dashboard with helpers to set node settings and call the action routes. */
export async function actionsApp(t: Teardown, env: Record<string, string> = {}): Promise<ActionsApp> {
  const app = await build(t, { env: { SSH_TIMEOUT_MS: '10000', RPC_TIMEOUT_MS: '5000', ...env } })
  const cookie = await login(app)
  return {
    app,
    cookie,
    async post(action) {
      const res = await app.inject({ method: 'POST', url: `/api/actions/${action}`, headers: { cookie } })
      return { statusCode: res.statusCode, body: res.json() }
    },
    async configure(settings) {
      await app.settingsCache.update(settings)
    },
  }
}

/** Settings that reach `host`'s node through the real sshd with the authorized key. */
export function nodeSettingsFor(sshd: Sshd, host: NodeHost): NodeSettingsUpdate {
  return {
    rpc_url: host.url,
    rpc_username: 'u',
    rpc_password: 'p',
    rpc_wallet: '',
    rpc_cookie_path: '',
    ssh_host: sshd.host,
    ssh_port: sshd.port,
    ssh_username: sshd.username,
    ssh_key_path: sshd.clientKeyPath,
    ssh_password: '',
    config_path: host.confPath,
    node_binary: NODE_BINARY,
    ssh_host_key_fingerprint: '',
  }
}

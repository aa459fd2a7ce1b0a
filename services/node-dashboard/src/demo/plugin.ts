import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import type { NodeSettings } from '../settings/repository.ts'
import { type DemoNode, startDemoNode } from './node.ts'

declare module 'fastify' {
  interface FastifyInstance {
    demoNode: DemoNodeSwitch
  }
}

export interface DemoNodeSwitch {
  /** DEMO_NODE resolved: auto is on with the embedded database, off with DATABASE_URL. */
  readonly enabled: boolean
  /** The demo node in use (running or stopped by an action), or null while real settings are saved or the demo is off. */
  current(): DemoNode | null
}

/** Settings that say which node to watch; node_binary, ssh_port and the host key have defaults or follow from these. */
const NODE_SETTINGS = [
  'rpc_url',
  'rpc_username',
  'rpc_password',
  'rpc_wallet',
  'ssh_host',
  'ssh_username',
  'ssh_password',
  'ssh_key_path',
  'config_path',
] as const satisfies readonly (keyof NodeSettings)[]

export const hasNodeSettings = (settings: NodeSettings) => NODE_SETTINGS.some((name) => settings[name] !== '')

export function demoNodeEnabled(config: Pick<Config, 'DEMO_NODE' | 'DATABASE_URL'>): boolean {
  return config.DEMO_NODE === 'on' || (config.DEMO_NODE === 'auto' && !config.DATABASE_URL)
}

/**
 * While no node settings are saved (and DEMO_NODE allows it) the dashboard watches a simulated node it
 * runs itself: the settings in effect point at it. Saving real settings closes it before the save answers.
 */
export const demoNodePlugin = fp(
  async function demoNodePlugin(fastify: FastifyInstance, { config }: { config: Config }) {
    const enabled = demoNodeEnabled(config)
    let node: DemoNode | null = null
    let closing = false
    // One reconciliation at a time: a save and a notification arriving together start or stop it once.
    let turn: Promise<void> = Promise.resolve()
    const reconcile = () => {
      turn = turn.then(async () => {
        if (closing) return
        const wanted = enabled && !hasNodeSettings(await fastify.settingsCache.stored())
        if (wanted && !node) {
          node = await startDemoNode()
          fastify.log.info({ rpc_url: node.connection().rpc_url }, 'demo node started: no node settings are saved')
        } else if (!wanted && node) {
          const old = node
          node = null
          await old.close()
          fastify.log.info('demo node switched off: node settings are saved')
        }
      })
      turn = turn.catch((error) => fastify.log.warn({ err: error }, 'demo node could not be switched'))
      return turn
    }
    fastify.decorate('demoNode', { enabled, current: () => node })
    if (!enabled) return
    fastify.settingsCache.setStandIn((stored) => (node && !hasNodeSettings(stored) ? { ...stored, ...node.connection() } : null))
    fastify.settingsCache.onChange(reconcile)
    fastify.addHook('onReady', reconcile)
    fastify.addHook('onClose', async () => {
      closing = true
      await turn
      await node?.close()
      node = null
    })
  },
  { name: 'dashboard-demo-node', dependencies: ['dashboard-settings'] },
)

/**
 * Saves of the node's config file (one row per save; the diff masks secrets). For other route authors:
 *   `await fastify.nodeConfigSaves.record({ username, path, backup_path, diff })`
 *   `await fastify.nodeConfigSaves.recent(20)` -> newest first
 */
import { type Queryable, repositoryPlugin } from '@app/common'

export interface ConfigSave {
  username: string | null
  path: string
  backup_path: string
  diff: string
}

export interface ConfigSaveRow extends ConfigSave {
  id: number
  created_at: string
}

export function createNodeConfigSavesRepository(db: Queryable) {
  return {
    async record(save: ConfigSave): Promise<void> {
      await db.query('INSERT INTO node_config_saves (username, path, backup_path, diff) VALUES ($1, $2, $3, $4)', [
        save.username,
        save.path,
        save.backup_path,
        save.diff,
      ])
    },
    async recent(limit: number): Promise<ConfigSaveRow[]> {
      const { rows } = await db.query<ConfigSaveRow>(
        'SELECT id, created_at, username, path, backup_path, diff FROM node_config_saves ORDER BY id DESC LIMIT $1',
        [limit],
      )
      return rows.map((row) => ({ ...row, id: Number(row.id), created_at: new Date(row.created_at).toISOString() }))
    },
  }
}

export type NodeConfigSavesRepository = ReturnType<typeof createNodeConfigSavesRepository>

declare module 'fastify' {
  interface FastifyInstance {
    nodeConfigSaves: NodeConfigSavesRepository
  }
}

export const nodeConfigPlugin = repositoryPlugin('dashboard-node-config', 'nodeConfigSaves', createNodeConfigSavesRepository)

/**
 * Node settings (one row in PostgreSQL), read through the in-memory cache. For other route authors:
 *   `fastify.settingsCache.get()`  -> NodeSettings in effect (the demo node's connection while it runs), secrets decrypted
 *     (never send them to a client); `stored()` -> the persisted ones
 *   `fastify.settingsCache.update(partial)` -> NodeSettings after the change (plain-text secrets in, encrypted at rest)
 *   `fastify.settingsCache.updateFrom(current => partial)` -> the same, deciding the change from the stored values
 *     with no other change in between (the settings route uses it to keep secrets bound to their target)
 *   `fastify.settingsCache.recordHostKey('SHA256:...')` -> true when it was stored (only while the field is empty: TOFU)
 * `missingSettings(settings, [...names])` lists the names of empty ones (for 400 answers).
 */
import type { Database, Queryable } from '@app/common'
import type { SecretBox } from './crypto.ts'

export interface NodeSettings {
  rpc_url: string
  rpc_username: string
  rpc_password: string
  rpc_wallet: string
  /** bitcoind's `.cookie` file, read when rpc_password is empty (locally, else over SSH). */
  rpc_cookie_path: string
  config_path: string
  ssh_host: string
  ssh_port: number
  ssh_username: string
  ssh_password: string
  ssh_key_path: string
  node_binary: string
  /** "SHA256:<base64>" of the node host's SSH key; "" until the first successful connection. */
  ssh_host_key_fingerprint: string
}

export type NodeSettingsUpdate = Partial<NodeSettings>

export interface NodeSettingsRepository {
  get(): Promise<NodeSettings>
  update(partial: NodeSettingsUpdate): Promise<NodeSettings>
  updateFrom(decide: (current: NodeSettings) => NodeSettingsUpdate): Promise<NodeSettings>
  recordHostKey(fingerprint: string): Promise<boolean>
}

const SETTING_NAMES = [
  'rpc_url',
  'rpc_username',
  'rpc_password',
  'rpc_wallet',
  'rpc_cookie_path',
  'config_path',
  'ssh_host',
  'ssh_port',
  'ssh_username',
  'ssh_password',
  'ssh_key_path',
  'node_binary',
  'ssh_host_key_fingerprint',
] as const satisfies readonly (keyof NodeSettings)[]

const SECRET_NAMES = new Set<keyof NodeSettings>(['rpc_password', 'ssh_password'])

// Column per setting; secrets live in *_enc columns. Names come from this fixed list only.
const column = (name: keyof NodeSettings) => (SECRET_NAMES.has(name) ? `${name}_enc` : name)

type Row = Record<string, string | number>

export function missingSettings(settings: NodeSettings, names: (keyof NodeSettings)[]): string[] {
  return names.filter((name) => settings[name] === '' || settings[name] === undefined)
}

export function createNodeSettingsRepository(
  db: Database,
  box: SecretBox,
  log?: { warn: (obj: unknown, msg?: string) => void },
): NodeSettingsRepository {
  const fromRow = (row: Row): NodeSettings => {
    const settings = {} as Record<string, string | number>
    for (const name of SETTING_NAMES) {
      const value = row[column(name)]
      if (SECRET_NAMES.has(name)) {
        const plain = box.decrypt(String(value ?? ''))
        // A secret encrypted under another SESSION_SECRET cannot be read: treat it as unset.
        if (plain === null)
          log?.warn({ setting: name }, 'stored secret cannot be decrypted (SESSION_SECRET changed?); treated as unset')
        settings[name] = plain ?? ''
      } else {
        settings[name] = name === 'ssh_port' ? Number(value) : String(value ?? '')
      }
    }
    return settings as unknown as NodeSettings
  }
  const select = `SELECT ${SETTING_NAMES.map(column).join(', ')} FROM node_settings WHERE id = 1`

  async function read(q: Queryable, forUpdate = false): Promise<NodeSettings> {
    const sql = forUpdate ? `${select} FOR UPDATE` : select
    const { rows } = await q.query<Row>(sql)
    // The migration inserts the row; recreate it if someone deleted it.
    if (!rows[0]) {
      await q.query('INSERT INTO node_settings (id) VALUES (1) ON CONFLICT DO NOTHING')
      return fromRow((await q.query<Row>(sql)).rows[0])
    }
    return fromRow(rows[0])
  }

  async function write(q: Queryable, partial: NodeSettingsUpdate): Promise<void> {
    const sets: string[] = []
    const params: unknown[] = []
    for (const name of SETTING_NAMES) {
      const value = partial[name]
      if (value === undefined) continue
      params.push(SECRET_NAMES.has(name) ? box.encrypt(String(value)) : value)
      sets.push(`${column(name)} = $${params.length}`)
    }
    if (sets.length === 0) return
    await q.query('INSERT INTO node_settings (id) VALUES (1) ON CONFLICT DO NOTHING')
    await q.query(`UPDATE node_settings SET ${sets.join(', ')}, updated_at = now() WHERE id = 1`, params)
  }

  return {
    get: () => read(db),
    async update(partial) {
      await write(db, partial)
      return read(db)
    },
    updateFrom(decide) {
      // The row stays locked from the read to the write.
      return db.transaction(async (tx) => {
        await write(tx, decide(await read(tx, true)))
        return read(tx)
      })
    },
    async recordHostKey(fingerprint) {
      const { rowCount } = await db.query(
        "UPDATE node_settings SET ssh_host_key_fingerprint = $1, updated_at = now() WHERE id = 1 AND ssh_host_key_fingerprint = ''",
        [fingerprint],
      )
      return rowCount > 0
    },
  }
}

import { Type } from '@sinclair/typebox'
import { CONF_SECRET_MASK } from './conf-text.ts'
import { MAX_CONF_BYTES } from './remote.ts'

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the file on the node host' })

export const NodeConfigView = Type.Object({
  path: Type.String({ description: 'config_path on the node host' }),
  sha256: Sha256,
  size: Type.Integer({ description: 'bytes' }),
  text: Type.String({ description: `the file, with rpcpassword and rpcauth values shown as ${CONF_SECRET_MASK}` }),
  masked_secrets: Type.Integer(),
  options: Type.Record(Type.String(), Type.String(), {
    description: 'the common options of the top section (last value wins): prune, txindex, dbcache, ...',
  }),
  problem: Type.Union([Type.String(), Type.Null()], {
    description: 'why the file does not parse or holds a value bitcoind refuses; null when fine',
  }),
})

export const NodeConfigSaved = Type.Composite([
  NodeConfigView,
  Type.Object({
    saved: Type.Boolean({ description: 'false when the text was unchanged (nothing written)' }),
    backup_path: Type.Union([Type.String(), Type.Null()], { description: 'the copy of the previous file on the node host' }),
    diff: Type.String({ description: 'unified diff of the masked texts' }),
    restart_needed: Type.Boolean({ description: 'the node reads its config at start: restart it to apply' }),
  }),
])

export const NodeConfigBody = Type.Object(
  {
    text: Type.String({
      maxLength: MAX_CONF_BYTES,
      description: `the whole new file; a secret still shown as ${CONF_SECRET_MASK} keeps its stored value`,
    }),
    sha256: { ...Sha256, description: 'the sha256 of the version the edit started from (409 when the file changed since)' },
  },
  { additionalProperties: false },
)

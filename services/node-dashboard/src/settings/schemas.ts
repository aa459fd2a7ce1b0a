import { Type } from '@sinclair/typebox'

/** Shown instead of a stored secret; sending it back in a PUT keeps the secret. */
export const SECRET_MASK = '********'

// No control characters: they have no place in hosts, paths or passwords and would corrupt logs.
const text = (maxLength: number, description: string) =>
  Type.String({ maxLength, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description })

export const SettingsBody = Type.Object(
  {
    rpc_url: Type.Optional(text(2048, 'http(s) URL of the node RPC, e.g. http://127.0.0.1:8332/ ("" clears it)')),
    rpc_username: Type.Optional(text(256, 'RPC user')),
    rpc_password: Type.Optional(text(1024, `RPC password; "${SECRET_MASK}" keeps the stored one`)),
    rpc_wallet: Type.Optional(text(256, 'wallet name for wallet RPCs ("" for none)')),
    rpc_cookie_path: Type.Optional(
      text(
        4096,
        "absolute path of the node's RPC cookie file (e.g. /home/bitcoin/.bitcoin/.cookie), used when rpc_password is empty",
      ),
    ),
    config_path: Type.Optional(text(4096, 'path of the node config file on the node host')),
    ssh_host: Type.Optional(text(255, 'SSH host of the node')),
    ssh_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'SSH port (default 22)' })),
    ssh_username: Type.Optional(text(256, 'SSH user')),
    ssh_password: Type.Optional(text(1024, `SSH password; "${SECRET_MASK}" keeps the stored one`)),
    ssh_key_path: Type.Optional(text(4096, 'private key file readable by the dashboard')),
    node_binary: Type.Optional(text(4096, 'path or name of the node executable (default bitcoind)')),
    ssh_host_key_fingerprint: Type.Optional(
      Type.String({
        pattern: '^(SHA256:[A-Za-z0-9+/]{43}=?)?$',
        description: 'pinned host key (SHA256:...); "" trusts the next host key on first use',
      }),
    ),
  },
  { additionalProperties: false },
)

export const SettingsView = Type.Object({
  rpc_url: Type.String(),
  rpc_username: Type.String(),
  rpc_password: Type.String({ description: `"${SECRET_MASK}" when set, "" when not` }),
  rpc_wallet: Type.String(),
  rpc_cookie_path: Type.String(),
  config_path: Type.String(),
  ssh_host: Type.String(),
  ssh_port: Type.Integer(),
  ssh_username: Type.String(),
  ssh_password: Type.String({ description: `"${SECRET_MASK}" when set, "" when not` }),
  ssh_key_path: Type.String(),
  node_binary: Type.String(),
  ssh_host_key_fingerprint: Type.String(),
  demo_node: Type.Boolean({
    description: 'true while no node settings are saved and the dashboard watches the simulated node it runs itself (DEMO_NODE)',
  }),
})

const CHECK_FAILURE =
  'why the test failed (null when ok): auth, refused, unreachable, timeout, host-key, warmup, not-configured, ...'

export const RpcCheckView = Type.Object({
  ok: Type.Boolean(),
  failure: Type.Union([Type.String(), Type.Null()], { description: CHECK_FAILURE }),
  detail: Type.String({ description: 'what happened, in a sentence (never a secret)' }),
  authentication: Type.Union([Type.Literal('password'), Type.Literal('cookie'), Type.Literal('none')]),
  node: Type.Union([
    Type.Object({
      version: Type.Integer({ description: 'getnetworkinfo version, e.g. 300000' }),
      subversion: Type.String({ description: 'e.g. /Satoshi:30.0.0/' }),
      chain: Type.String({ description: 'main, test, testnet4, signet or regtest' }),
      blocks: Type.Integer(),
    }),
    Type.Null(),
  ]),
  duration_ms: Type.Integer(),
})

export const SshCheckView = Type.Object({
  ok: Type.Boolean(),
  failure: Type.Union([Type.String(), Type.Null()], {
    description: `${CHECK_FAILURE}, settings (unusable key file), node-binary (the login worked, the version command did not)`,
  }),
  detail: Type.String({ description: 'what happened, in a sentence (never a secret)' }),
  host_key_fingerprint: Type.Union([Type.String(), Type.Null()], { description: 'the key the host showed (SHA256:...)' }),
  host_key_pinned: Type.Boolean({ description: 'the host showed the pinned ssh_host_key_fingerprint' }),
  node_version: Type.Union([Type.String(), Type.Null()], { description: 'first line of `<node_binary> -version`' }),
  duration_ms: Type.Integer(),
})

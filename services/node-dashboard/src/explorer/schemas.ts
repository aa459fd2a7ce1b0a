import { Type } from '@sinclair/typebox'
import { RISK_CLASSES } from './risk.ts'

const METHOD_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_]{0,63}$'
const methodName = Type.String({ pattern: METHOD_NAME_PATTERN, description: 'JSON-RPC method name (letters, digits, _)' })

export const RpcCallBody = Type.Object(
  {
    method: methodName,
    params: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100, description: 'positional parameters; may be empty' })),
    wallet: Type.Optional(
      Type.Union([Type.String({ maxLength: 256 }), Type.Null()], {
        description: 'wallet override: a name uses /wallet/<name>, "" the root endpoint, null or absent the rpc_wallet setting',
      }),
    ),
  },
  { additionalProperties: false },
)

export const RpcCallResponse = Type.Object({
  method: Type.String(),
  wallet: Type.Union([Type.String(), Type.Null()], { description: 'the wallet endpoint used; null for the root endpoint' }),
  result: Type.Unknown({ description: 'the method result as the node returned it' }),
  duration_ms: Type.Number(),
})

const Risk = Type.Union(
  RISK_CLASSES.map((risk) => Type.Literal(risk)),
  {
    description:
      'what a call can do: read_only, wallet_read, changes_state, funds_or_keys (spends, signs, unlocks or reveals keys), ' +
      'stops_or_damages (stop, invalidateblock...); a method the dashboard does not know counts as changes_state',
  },
)

export const CommandsResponse = Type.Object({
  count: Type.Integer({ description: 'number of methods' }),
  categories: Type.Array(
    Type.Object({
      name: Type.String(),
      methods: Type.Array(
        Type.Object({ name: Type.String(), args: Type.String({ description: 'argument synopsis' }), risk: Risk }),
      ),
    }),
  ),
})

const RpcArgument = Type.Object({
  position: Type.Integer({ minimum: 1, description: '1-based position in params' }),
  name: Type.String(),
  type: Type.String({ description: 'as the node writes it: string, numeric, boolean, json object, "numeric or string"...' }),
  required: Type.Boolean(),
  default: Type.Union([Type.String(), Type.Null()], { description: "the node's description of the default; null when none" }),
  description: Type.String(),
})

export const HelpParams = Type.Object({ method_name: methodName })
export const HelpResponse = Type.Object({
  method: Type.String(),
  help: Type.String({ description: 'the node help text verbatim' }),
  risk: Risk,
  secret_params: Type.Boolean({ description: 'the params carry a passphrase, a private key or a seed' }),
  arguments: Type.Array(RpcArgument, { description: "the help's Arguments section, parsed" }),
})

export const RiskResponse = Type.Object({
  method: Type.String(),
  risk: Risk,
  secret_params: Type.Boolean({ description: 'the params carry a passphrase, a private key or a seed' }),
})

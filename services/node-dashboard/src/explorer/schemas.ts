import { Type } from '@sinclair/typebox'

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

export const CommandsResponse = Type.Object({
  count: Type.Integer({ description: 'number of methods' }),
  categories: Type.Array(
    Type.Object({
      name: Type.String(),
      methods: Type.Array(Type.Object({ name: Type.String(), args: Type.String({ description: 'argument synopsis' }) })),
    }),
  ),
})

export const HelpParams = Type.Object({ method_name: methodName })
export const HelpResponse = Type.Object({
  method: Type.String(),
  help: Type.String({ description: 'the node help text verbatim' }),
})

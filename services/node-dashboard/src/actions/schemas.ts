import { Type } from '@sinclair/typebox'

/** What the remote start command did (the "remote payload"). */
export const SshPayload = Type.Object({
  command: Type.String({ description: 'the exact command run on the node host' }),
  exit_code: Type.Union([Type.Integer(), Type.Null()], { description: 'null when it did not finish' }),
  stdout: Type.String(),
  stderr: Type.String(),
  duration_ms: Type.Integer({ minimum: 0 }),
  attempts: Type.Optional(
    Type.Integer({ minimum: 1, description: 'restart: starts tried while the old node still held its data-directory lock' }),
  ),
})

/** The RPC stop step. */
export const RpcPayload = Type.Object({
  method: Type.Literal('stop'),
  ok: Type.Boolean(),
  result: Type.Union([Type.String(), Type.Null()], { description: 'the node\'s reply, e.g. "Bitcoin Core stopping"' }),
  node_was_running: Type.Boolean({ description: 'false when the RPC port was already closed (restart only)' }),
  detail: Type.Optional(Type.String({ description: 'why the stop failed or was skipped' })),
})

const metadata = {
  action: Type.Union([Type.Literal('stop'), Type.Literal('start'), Type.Literal('restart')]),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Type.String({ format: 'date-time' }),
  ok: Type.Boolean(),
  rpc: Type.Optional(RpcPayload),
  ssh: Type.Optional(SshPayload),
}

export const ActionResult = Type.Object(metadata)

/** 502: the failure detail plus the same metadata and whatever the node or remote host answered. */
export const ActionFailure = Type.Object({ detail: Type.String(), ...metadata })

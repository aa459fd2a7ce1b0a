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

/** One step of a start or restart as it happened. */
export const ActionPhaseSchema = Type.Object({
  phase: Type.Union(['stopping', 'stopped', 'starting', 'warming_up', 'running', 'failed'].map((phase) => Type.Literal(phase))),
  at: Type.String({ format: 'date-time' }),
  message: Type.Optional(Type.String({ description: "bitcoind's warm-up status, the verification progress, or why it failed" })),
})

/** The tail of the node's debug.log, read over SSH after a failed start. */
export const DebugLogSchema = Type.Object({
  path: Type.String({ description: '<datadir>/[<chain dir>/]debug.log from the node config' }),
  lines: Type.Array(Type.String(), { description: 'the last lines (at most 200 and 64 KiB), control characters as \\xNN' }),
  truncated: Type.Boolean({ description: 'older lines were left out' }),
  reindex_suggested: Type.Boolean({ description: 'the log asks for a restart with -reindex' }),
})

const metadata = {
  action: Type.Union([Type.Literal('stop'), Type.Literal('start'), Type.Literal('restart'), Type.Literal('start-reindex')]),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Type.String({ format: 'date-time' }),
  ok: Type.Boolean(),
  rpc: Type.Optional(RpcPayload),
  ssh: Type.Optional(SshPayload),
  phases: Type.Optional(Type.Array(ActionPhaseSchema, { description: 'start and restart: each phase as it happened' })),
  debug_log: Type.Optional(DebugLogSchema),
}

/** start-reindex: the explicit confirmation that the block index and chainstate are rebuilt. */
export const StartReindexBody = Type.Object(
  {
    confirm: Type.Literal(true, {
      description: 'must be true: -reindex rebuilds the block index and chainstate (hours on mainnet)',
    }),
  },
  { additionalProperties: false },
)

export const ActionResult = Type.Object(metadata)

/** 502: the failure detail plus the same metadata and whatever the node or remote host answered. */
export const ActionFailure = Type.Object({ detail: Type.String(), ...metadata })

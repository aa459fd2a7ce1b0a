import { HttpError } from '@app/common'
import type { Static } from '@sinclair/typebox'
import type { DebugLog } from '../lifecycle/debug-log.ts'
import type { ActionPhase } from './repository.ts'
import type { RpcPayload, SshPayload } from './schemas.ts'

export interface ActionSteps {
  rpc?: Static<typeof RpcPayload>
  ssh?: Static<typeof SshPayload>
  phases?: ActionPhase[]
  debug_log?: DebugLog
}

/** A failed action: the status (400/502), a detail for the client, and the steps that did run. */
export class ActionError extends HttpError {
  constructor(
    statusCode: number,
    message: string,
    readonly steps: ActionSteps = {},
  ) {
    super(statusCode, message)
    this.name = 'ActionError'
  }
}

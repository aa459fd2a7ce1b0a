import { HttpError } from '@app/common'

/**
 * Why a node RPC call failed. `unreachable` also covers a node that just stopped (connection
 * refused); `warmup` is error -28 (the node is starting; rpcMessage holds its status text).
 */
export type RpcFailureKind =
  | 'not-configured'
  | 'unreachable'
  | 'timeout'
  | 'auth'
  | 'forbidden'
  | 'busy'
  | 'warmup'
  | 'rpc'
  | 'http'
  | 'bad-reply'

/** An HttpError (502, or 400 when rpc_url is not set) whose detail says what happened, never a secret. */
export class RpcError extends HttpError {
  constructor(
    readonly kind: RpcFailureKind,
    message: string,
    readonly rpcCode?: number,
    readonly rpcMessage?: string,
  ) {
    super(kind === 'not-configured' ? 400 : 502, message)
    this.name = 'RpcError'
  }
}

export function isRpcError(error: unknown, kind?: RpcFailureKind): error is RpcError {
  return error instanceof RpcError && (kind === undefined || error.kind === kind)
}

import {
  type ExecContext,
  execute,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_MISC_ERROR,
  RPC_PARSE_ERROR,
  RpcError,
} from './methods.ts'
import { type UniValue, write } from './univalue.ts'

// A port of src/httprpc.cpp HTTPReq_JSONRPC and src/rpc/request.cpp (v30): what each body gets back.

type Version = 'legacy' | '2.0'

/** Core's JSONRPCRequest; reused across batch items exactly like the C++ loop (ids and versions leak). */
class Request {
  /** undefined = no "id" key (a 2.0 request without it is a notification). */
  id: UniValue | undefined = null
  version: Version = 'legacy'
  method = ''
  params: unknown[] | Record<string, unknown> = []

  get isNotification() {
    return this.id === undefined && this.version === '2.0'
  }

  parse(value: unknown) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new RpcError(RPC_INVALID_REQUEST, 'Invalid Request object')
    }
    const request = value as Record<string, unknown>
    // The id is read first so the errors below carry it.
    this.id = Object.hasOwn(request, 'id') ? (request.id as UniValue) : undefined
    this.version = 'legacy'
    const jsonrpc = request.jsonrpc
    if (jsonrpc !== undefined && jsonrpc !== null) {
      if (typeof jsonrpc !== 'string') throw new RpcError(RPC_INVALID_REQUEST, 'jsonrpc field must be a string')
      if (jsonrpc === '2.0') this.version = '2.0'
      else if (jsonrpc !== '1.0') throw new RpcError(RPC_INVALID_REQUEST, 'JSON-RPC version not supported')
    }
    const method = request.method
    if (method === undefined || method === null) throw new RpcError(RPC_INVALID_REQUEST, 'Missing method')
    if (typeof method !== 'string') throw new RpcError(RPC_INVALID_REQUEST, 'Method must be a string')
    this.method = method
    const params = request.params
    if (Array.isArray(params) || (params !== null && typeof params === 'object')) {
      this.params = params as unknown[] | Record<string, unknown>
    } else if (params === undefined || params === null) this.params = []
    else throw new RpcError(RPC_INVALID_REQUEST, 'Params must be an array or object')
  }
}

function errorObject(error: unknown): UniValue {
  if (error instanceof RpcError) return { code: error.code, message: error.message }
  return { code: RPC_MISC_ERROR, message: error instanceof Error ? error.message : String(error) }
}

/** JSONRPCReplyObj: legacy carries both result and error; 2.0 omits the null one; id only when sent. */
function replyObject(result: UniValue, error: UniValue, req: Request): UniValue {
  const reply: Record<string, UniValue> = {}
  if (req.version === '2.0') reply.jsonrpc = '2.0'
  if (error === null) {
    reply.result = result
    if (req.version === 'legacy') reply.error = null
  } else {
    if (req.version === 'legacy') reply.result = null
    reply.error = error
  }
  if (req.id !== undefined) reply.id = req.id
  return reply
}

function execOne(ctx: ExecContext, warmup: string | null, req: Request): UniValue {
  try {
    return replyObject(execute(ctx, warmup, req.method, req.params), null, req)
  } catch (error) {
    return replyObject(null, errorObject(error), req)
  }
}

export interface RpcReply {
  status: number
  /** The JSON body without its final "\n"; null for 204. */
  body: string | null
}

/** Runs one HTTP body (already authenticated) and returns the status and reply body. */
export function handleBody(ctx: ExecContext, warmup: string | null, text: string): RpcReply {
  const req = new Request()
  try {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw new RpcError(RPC_PARSE_ERROR, 'Parse error')
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      req.parse(value)
      if (req.version === '2.0') {
        // 2.0 catches RPC errors into an HTTP 200 reply; notifications are run but get no body.
        const reply = execOne(ctx, warmup, req)
        return req.isNotification ? { status: 204, body: null } : { status: 200, body: write(reply) }
      }
      return { status: 200, body: write(replyObject(execute(ctx, warmup, req.method, req.params), null, req)) }
    }
    if (Array.isArray(value)) {
      const replies: UniValue[] = []
      for (const item of value) {
        let reply: UniValue
        try {
          req.parse(item)
          reply = execOne(ctx, warmup, req)
        } catch (error) {
          reply = replyObject(null, errorObject(error), req)
        }
        if (!req.isNotification) replies.push(reply)
      }
      return { status: 200, body: write(replies) }
    }
    throw new RpcError(RPC_PARSE_ERROR, 'Top-level object parse error')
  } catch (error) {
    // JSONErrorReply: the legacy HTTP status mapping.
    const err = errorObject(error) as { code: number; message: string }
    const status = err.code === RPC_INVALID_REQUEST ? 400 : err.code === RPC_METHOD_NOT_FOUND ? 404 : 500
    return { status, body: write(replyObject(null, err, req)) }
  }
}

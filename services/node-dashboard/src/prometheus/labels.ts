import { CLASSIFIED_METHODS } from '../explorer/risk.ts'

/** The label value for anything outside a bounded set. */
export const OTHER = 'other'

/** A method name from the dashboard's catalog (explorer/risk.ts) labels itself; any other name is "other". */
export function methodLabel(method: string): string {
  return CLASSIFIED_METHODS.has(method) ? method : OTHER
}

/**
 * A node's RPC error code: bitcoind's own (-1 .. -40, rpc/protocol.h) and JSON-RPC's (-32700 .. -32600) label
 * themselves, "none" when the failure carried no code (a timeout, a refused connection), any other number "other".
 */
export function codeLabel(code: number | undefined): string {
  if (code === undefined) return 'none'
  if (Number.isInteger(code) && ((code <= -1 && code >= -40) || (code <= -32600 && code >= -32700))) return String(code)
  return OTHER
}

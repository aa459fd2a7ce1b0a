/** Pure helpers of the RPC explorer's argument form and bitcoin-cli copy (no DOM), unit-tested under Node. */
import type { RpcArgument } from '../../src/explorer/help-parser.ts'
import { nodeEndpoint, shellQuote } from './rpc-tools.ts'

/** One argument of a method, as the help route parses it (the server's own type). */
export type { RpcArgument } from '../../src/explorer/help-parser.ts'

export type BuiltParams = { ok: true; params: unknown[] } | { ok: false; error: string }

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** One field's text as the value its type takes; an error names the argument. */
function convert(arg: RpcArgument, text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const type = arg.type.toLowerCase()
  if (type === 'string') return { ok: true, value: text }
  if (type === 'numeric' || type === 'amount') {
    return NUMBER.test(text) ? { ok: true, value: Number(text) } : { ok: false, error: `${arg.name} must be a number.` }
  }
  if (type === 'boolean') {
    if (text === 'true' || text === 'false') return { ok: true, value: text === 'true' }
    return { ok: false, error: `${arg.name} must be true or false.` }
  }
  // "numeric or string" (amounts, fee rates): a number when it reads as one, else the text.
  if (type.includes('numeric') && type.includes('string')) return { ok: true, value: NUMBER.test(text) ? Number(text) : text }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    // A type this form does not know takes its text as a string; JSON types must be JSON.
    if (!type.startsWith('json')) return { ok: true, value: text }
    return { ok: false, error: `${arg.name} must be JSON (${arg.type}).` }
  }
}

/**
 * The params array from one text per argument (in position order): empty fields after the last filled one are left
 * out, and an empty optional field before a filled one is sent as null, which the node reads as "use the default".
 */
export function buildParams(args: RpcArgument[], texts: string[]): BuiltParams {
  let last = -1
  texts.forEach((text, i) => {
    if (text.trim() !== '') last = i
  })
  const params: unknown[] = []
  for (let i = 0; i <= last; i++) {
    const arg = args[i]
    const text = texts[i].trim()
    if (text === '') {
      if (arg.required) return { ok: false, error: `${arg.name} is required.` }
      params.push(null)
      continue
    }
    const converted = convert(arg, text)
    if (!converted.ok) return converted
    params.push(converted.value)
  }
  const missing = args.slice(last + 1).find((arg) => arg.required)
  if (missing) return { ok: false, error: `${missing.name} is required.` }
  return { ok: true, params }
}

/** A value as one bitcoin-cli argument: text as it is, anything else as JSON (the cli parses non-string types). */
const cliValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/**
 * The same call as a bitcoin-cli command. With the argument names known it uses -named (a null, meaning the default,
 * is left out); otherwise the params go by position. No password: -stdinrpcpass reads it from the terminal.
 */
export function bitcoinCliCommand(
  rpcUrl: string,
  method: string,
  params: unknown[],
  wallet: string | null,
  args: RpcArgument[] = [],
): string {
  const endpoint = new URL(nodeEndpoint(rpcUrl, null))
  const parts = ['bitcoin-cli', `-rpcconnect=${shellQuote(endpoint.hostname.replace(/^\[|\]$/g, ''))}`]
  if (endpoint.port) parts.push(`-rpcport=${endpoint.port}`)
  parts.push('-rpcuser="$RPC_USER"', '-stdinrpcpass')
  if (wallet) parts.push(`-rpcwallet=${shellQuote(wallet)}`)
  const named = params.length > 0 && params.length <= args.length
  if (named) parts.push('-named')
  parts.push(method)
  params.forEach((value, i) => {
    if (!named) parts.push(shellQuote(cliValue(value)))
    else if (value !== null) parts.push(shellQuote(`${args[i].name}=${cliValue(value)}`))
  })
  return parts.join(' ')
}

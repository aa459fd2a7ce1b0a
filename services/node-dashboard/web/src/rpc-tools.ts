/** Pure helpers of the RPC explorer (no DOM), so they can be unit-tested under Node. */

export type ParamsCheck = { ok: true; params: unknown[] } | { ok: false; error: string }

/** The params editor accepts exactly a JSON array; anything else is refused before a request is made. */
export function parseParams(text: string): ParamsCheck {
  const source = text.trim()
  if (source === '') return { ok: true, params: [] }
  let value: unknown
  try {
    value = JSON.parse(source)
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'invalid JSON'
    return { ok: false, error: `Params are not valid JSON: ${reason}` }
  }
  if (!Array.isArray(value)) return { ok: false, error: 'Params must be a JSON array, for example [] or [1, true, "text"].' }
  return { ok: true, params: value }
}

/** Bitcoin Core method names: lowercase letters, digits and underscores. */
export const methodNamePattern = /^[A-Za-z0-9_.]{1,64}$/

/** Quotes a value for a POSIX shell: single quotes, with embedded single quotes closed and escaped. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`
}

/** The node URL without any user:password part, with the wallet path when one is selected. */
export function nodeEndpoint(rpcUrl: string, wallet: string | null): string {
  let base = 'http://127.0.0.1:8332/'
  try {
    const url = new URL(rpcUrl)
    url.username = ''
    url.password = ''
    url.search = ''
    url.hash = ''
    base = url.toString()
  } catch {
    // No usable rpc_url in the settings yet: fall back to mainnet's default port.
  }
  if (!base.endsWith('/')) base += '/'
  return wallet ? `${base}wallet/${encodeURIComponent(wallet)}` : base
}

/**
 * The same call as a curl command straight to the node. Credentials are never included:
 * curl asks for the password of $RPC_USER itself.
 */
export function curlCommand(rpcUrl: string, method: string, params: unknown[], wallet: string | null): string {
  const payload = JSON.stringify({ jsonrpc: '1.0', id: 'dashboard', method, params })
  return [
    'curl --user "$RPC_USER"',
    `--data-binary ${shellQuote(payload)}`,
    "-H 'content-type: text/plain;'",
    shellQuote(nodeEndpoint(rpcUrl, wallet)),
  ].join(' \\\n  ')
}

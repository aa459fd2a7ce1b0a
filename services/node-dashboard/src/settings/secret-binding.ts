import type { NodeSettings, NodeSettingsUpdate } from './repository.ts'

/** The settings that name where ssh_password is sent. */
const SSH_TARGET = ['ssh_host', 'ssh_port', 'ssh_username', 'ssh_host_key_fingerprint'] as const

/** scheme://host:port of an RPC URL (default ports and case normalised); the text itself when it does not parse. */
function rpcOrigin(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/**
 * The cookie path counts as a secret here: the dashboard sends the file's content to rpc_url.
 * A stored password stays bound to the target it was saved for: an update that moves the RPC origin
 * (scheme, host or port) or the SSH host, port, user or pinned host key clears that password unless
 * the update carries it again. Otherwise whoever holds a session could re-point the target at a
 * listener of theirs and have the dashboard send it the password.
 */
export function keepSecretsBound(current: NodeSettings, update: NodeSettingsUpdate): NodeSettingsUpdate {
  const next = { ...current, ...update }
  const bound = { ...update }
  if (update.rpc_password === undefined && rpcOrigin(next.rpc_url) !== rpcOrigin(current.rpc_url)) {
    bound.rpc_password = ''
  }
  if (update.rpc_cookie_path === undefined && rpcOrigin(next.rpc_url) !== rpcOrigin(current.rpc_url)) {
    bound.rpc_cookie_path = ''
  }
  if (update.ssh_password === undefined && SSH_TARGET.some((name) => next[name] !== current[name])) {
    bound.ssh_password = ''
  }
  return bound
}

/**
 * One value as a POSIX shell word: single quotes keep everything literal, and an embedded quote
 * is closed, escaped and reopened ('\''), so no setting can inject shell syntax.
 */
export function shellQuote(value: string): string {
  if (value.includes('\0')) throw new Error('a shell argument cannot contain a NUL character')
  return `'${value.replaceAll("'", `'\\''`)}'`
}

/** `<node_binary> -conf=<config_path> -daemon` (and `-reindex` when asked), every value quoted. */
export function startCommand({
  nodeBinary,
  configPath,
  reindex = false,
}: {
  nodeBinary: string
  configPath: string
  reindex?: boolean
}): string {
  return `${shellQuote(nodeBinary)} -conf=${shellQuote(configPath)} -daemon${reindex ? ' -reindex' : ''}`
}

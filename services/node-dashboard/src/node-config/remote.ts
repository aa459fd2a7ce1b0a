/**
 * The node's config file on the node host, over SSH: read it (regular files of at most 256 KiB, with its
 * SHA-256) and replace it atomically (a temporary file beside it with the same owner and mode, a
 * timestamped backup, then a rename), only when it still has the SHA-256 the editor started from.
 */
import { shellQuote } from '../ssh/command.ts'

export const MAX_CONF_BYTES = 256 * 1024

/** Exit codes of the scripts below, read by the use case. */
export const EXIT = { missing: 2, notRegular: 3, tooLarge: 4, changed: 5, shortWrite: 6 } as const

/** Prints the file's SHA-256 on the first line, then the file, or exits with one of EXIT. */
export function readConfCommand(path: string): string {
  const f = shellQuote(path)
  return [
    `f=${f}`,
    `if [ -f "$f" ]; then`,
    `  size=$(wc -c < "$f")`,
    `  if [ "$size" -gt ${MAX_CONF_BYTES} ]; then echo "$size" >&2; exit ${EXIT.tooLarge}; fi`,
    `  sha256sum < "$f" | cut -c1-64 && cat -- "$f"`,
    `elif [ -e "$f" ]; then exit ${EXIT.notRegular}`,
    `else exit ${EXIT.missing}; fi`,
  ].join('\n')
}

/**
 * Replaces the file with stdin (`bytes` long) if its SHA-256 is still `expectedSha`; prints the backup's
 * path. A symlink is followed, so the link stays and its target changes.
 */
export function writeConfCommand(path: string, expectedSha: string, bytes: number, stamp: string): string {
  if (!/^[0-9a-f]{64}$/.test(expectedSha) || !/^[0-9A-Z]+$/.test(stamp)) throw new Error('bad write arguments')
  const f = shellQuote(path)
  return [
    'set -e',
    `f=$(readlink -f -- ${f}) || exit ${EXIT.missing}`,
    `if [ ! -f "$f" ]; then if [ -e "$f" ]; then exit ${EXIT.notRegular}; fi; exit ${EXIT.missing}; fi`,
    `[ "$(sha256sum < "$f" | cut -c1-64)" = "${expectedSha}" ] || exit ${EXIT.changed}`,
    'tmp=$(mktemp "$f.dashboard-XXXXXX")',
    `trap 'rm -f "$tmp"' EXIT`,
    // cp -p first: the new file gets the old one's owner and mode before any byte of it is written.
    'cp -p -- "$f" "$tmp"',
    'cat > "$tmp"',
    `[ "$(wc -c < "$tmp")" -eq ${bytes} ] || exit ${EXIT.shortWrite}`,
    `backup="$f.bak-${stamp}"`,
    'cp -p -- "$f" "$backup"',
    'mv -f -- "$tmp" "$f"',
    'trap - EXIT',
    'echo "$backup"',
  ].join('\n')
}

/** A UTC stamp for backup names: 20261124T160501Z. */
export function backupStamp(at = new Date()): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
}

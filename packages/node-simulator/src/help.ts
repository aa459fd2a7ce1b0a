import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** Recorded replies and help texts of real nodes (see REFERENCE.md there): this package's data files. */
export const BITCOIND_DATA_DIR = fileURLToPath(new URL('../data/bitcoind/', import.meta.url))

export type NodeVersion = '30.0.0' | '28.0.0'
export const NODE_VERSIONS: NodeVersion[] = ['30.0.0', '28.0.0']

const cache = new Map<string, string | null>()
const listings = new Map<string, Map<string, string>>()

function read(file: string): string | null {
  if (!cache.has(file)) cache.set(file, existsSync(file) ? readFileSync(file, 'utf8') : null)
  return cache.get(file) ?? null
}

/** The `help` listing: the real capture for v30; the reconstruction (minus its extra newline) otherwise. */
export function helpListing(version: NodeVersion, { withoutMethods = [] as string[] } = {}): string {
  const text =
    version === '30.0.0'
      ? read(path.join(BITCOIND_DATA_DIR, 'captured', 'help.txt'))!
      : read(path.join(BITCOIND_DATA_DIR, `help-${version}.txt`))!.replace(/\n$/, '')
  if (withoutMethods.length === 0) return text
  const drop = new Set(withoutMethods)
  return text
    .split('\n')
    .filter((line) => !drop.has(line.split(' ')[0]))
    .join('\n')
}

/** Every method named in the listing, with its synopsis line. */
export function listedMethods(version: NodeVersion): Map<string, string> {
  const key = `listing:${version}`
  if (listings.has(key)) return listings.get(key)!
  const methods = new Map<string, string>()
  for (const line of helpListing(version).split('\n')) {
    if (line === '' || line.startsWith('== ')) continue
    methods.set(line.split(' ')[0], line)
  }
  listings.set(key, methods)
  return methods
}

/**
 * `help <method>` as the node returns it (one trailing newline). v30 prefers the real captures; the
 * reference pages carry two extra newlines from their capture tool, removed here.
 */
export function helpPage(version: NodeVersion, method: string): string | null {
  const synopsis = listedMethods(version).get(method)
  if (synopsis === undefined) return null
  if (version === '30.0.0') {
    const captured = read(path.join(BITCOIND_DATA_DIR, 'captured', `help-${method}.txt`))
    if (captured !== null) return captured
  }
  const page = read(path.join(BITCOIND_DATA_DIR, 'help-pages', `${version}-${method}.txt`))
  if (page !== null) return page.replace(/\n\n\n$/, '\n')
  // Listed methods without a stored page answer with their synopsis line only.
  return `${synopsis}\n`
}

// How a service's package.json `serve` starts it (`NAME=value … node FLAGS dist/server.js`). Its memory settings
// (malloc's environment variables, node flags) are written there once; the launcher and the benches read them here.
import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * @param {string} serviceDir the service's folder (holding its package.json)
 * @returns {{ env: Record<string, string>, nodeArgs: string[], entry: string }}
 */
export function serveSettings(serviceDir) {
  /** @type {string} */
  const script = JSON.parse(readFileSync(path.join(serviceDir, 'package.json'), 'utf8')).scripts.serve
  const words = script.split(/\s+/).filter(Boolean)
  const node = words.indexOf('node')
  if (node < 0) throw new Error(`${serviceDir}/package.json serve does not run node: ${script}`)
  const env = Object.fromEntries(words.slice(0, node).map((word) => word.split('=', 2)))
  return { env, nodeArgs: words.slice(node + 1, -1), entry: words.at(-1) ?? '' }
}

import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { configSchema as catalogConfig } from '../services/meme-catalog/src/config.ts'
import { configSchema as dashboardConfig } from '../services/node-dashboard/src/config.ts'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const example = readFileSync(path.join(root, '.env.example'), 'utf8')

/** NAME -> value of every `NAME=value` line, commented out or not. */
const assignments = new Map(
  [...example.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string] as const),
)

test('.env.example names every variable the config schemas of both services read, with its default', async (t) => {
  const schemas = { 'meme-catalog': catalogConfig, 'node-dashboard': dashboardConfig }
  const names = new Set(Object.values(schemas).flatMap((schema) => Object.keys(schema.properties)))
  t.ok(names.has('TRUST_PROXY') && names.has('DASHBOARD_PASSWORD_HASH'), 'the list comes from the schemas')
  for (const name of names) {
    t.ok(assignments.has(name), `${name} is listed`)
    const value = assignments.get(name)
    if (!value) continue
    // A value written out is what the service would use anyway: its default, in every service that reads it.
    for (const [service, schema] of Object.entries(schemas)) {
      const property = (schema.properties as Record<string, { default?: unknown }>)[name]
      if (property) t.equal(value, String(property.default), `${name}=${value} is ${service}'s default`)
    }
  }
})

// Runs both built services side by side (`pnpm start`, after `pnpm build`), each output line prefixed with the
// service's name. Reads .env at the root when there is one (the environment wins over the file). A variable
// prefixed with a service's name sets that variable for that service only: MEME_CATALOG_PORT=9080 gives the
// catalog PORT=9080, NODE_DASHBOARD_DATABASE_URL its own database to the dashboard.
// Ctrl-C reaches the services directly (one process group); SIGTERM sent to this launcher is passed on once. It
// exits 0 when both services closed cleanly, otherwise with the first failure's code, and prints no stack of its own.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { serveSettings } from './serve-settings.mjs'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const services = ['meme-catalog', 'node-dashboard']

// The folder it runs in: pnpm runs scripts at the repository root.
const envFile = path.resolve('.env')
if (existsSync(envFile)) process.loadEnvFile(envFile)
// Two services share this terminal: their lines are prefixed, so JSON only when asked for.
if (!process.env.LOG_FORMAT || process.env.LOG_FORMAT === 'auto') process.env.LOG_FORMAT = 'pretty'

/** The environment of one service: everything, with its own prefixed variables applied unprefixed. */
function serviceEnv(service, env) {
  const prefix = `${service.toUpperCase().replaceAll('-', '_')}_`
  const own = Object.entries(env)
    .filter(([name]) => name.startsWith(prefix) && name.length > prefix.length)
    .map(([name, value]) => [name.slice(prefix.length), value])
  return { ...env, ...Object.fromEntries(own) }
}

const width = Math.max(...services.map((s) => s.length))
const children = services.map((service) => {
  const cwd = path.join(root, 'services', service)
  const entry = path.join(cwd, 'dist', 'server.js')
  if (!existsSync(entry)) {
    process.stderr.write(`${service}: ${path.relative(root, entry)} is missing; run pnpm build first\n`)
    process.exit(1)
  }
  // Memory on small machines, as the service's serve script sets it (see each service's README, Memory).
  const serve = serveSettings(cwd)
  const child = spawn(process.execPath, [...serve.nodeArgs, entry], {
    cwd,
    // Piped, a service would not colour its pretty log; it does when this launcher writes to a terminal.
    env: {
      ...serve.env,
      ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}),
      ...serviceEnv(service, process.env),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const label = `${service.padEnd(width)} | `
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    readline
      .createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY })
      .on('line', (line) => to.write(`${label}${line}\n`))
  }
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ service, code, signal })))
  return { child, exited }
})

let stopping = false
function stop(signal) {
  if (stopping) return
  stopping = true
  for (const { child } of children) if (child.exitCode === null) child.kill(signal)
}
// Ctrl-C already reached every service (same process group): sending it again would count as a second signal.
process.on('SIGINT', () => {
  stopping = true
})
process.on('SIGTERM', () => stop('SIGTERM'))
process.on('SIGHUP', () => stop('SIGTERM'))

// One service failing stops the other: a half-started stack is not left running.
const results = await Promise.all(
  children.map(async ({ exited }) => {
    const result = await exited
    stop('SIGTERM')
    return result
  }),
)
const failed = results.find((r) => r.code !== 0)
if (failed) {
  const how = failed.signal ? `was killed by ${failed.signal}` : `exited with code ${failed.code}`
  process.stderr.write(`${failed.service} ${how}\n`)
  process.exitCode = failed.code || 1
}

// The README's test command: prepares what the suite needs, runs every test with tap, and ends
// with one line "N passed, N failed" (tap's own summary is not in that form).
import { spawn, spawnSync } from 'node:child_process'
import { ensureSystemDeps } from './ensure-system-deps.mjs'

ensureSystemDeps()

// Front-end bundles the browser tests load (services that have a build:web script).
const web = spawnSync('npx', ['-y', 'pnpm@10', '-r', '--if-present', 'build:web'], { stdio: 'inherit' })
if (web.status !== 0) {
  console.log('0 passed, 1 failed')
  process.exit(1)
}

const args = process.argv.slice(2)
const tap = spawn('npx', ['tap', '--reporter=tap', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
let tail = ''
tap.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk).slice(-4000)
})
tap.on('exit', (code) => {
  // tap ends with a line like "# { total: 120, pass: 118, fail: 1, skip: 1 }"
  const summary = tail.match(/# \{([^}]*)\}\s*$/m)?.[1] ?? ''
  const count = (key) => Number(summary.match(new RegExp(`${key}: (\\d+)`))?.[1] ?? 0)
  let passed = count('pass')
  let failed = count('fail')
  if (!summary || (code !== 0 && failed === 0)) failed += 1
  if (!summary) passed = 0
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(code ?? 1)
})

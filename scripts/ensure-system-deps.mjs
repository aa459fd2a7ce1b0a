// Installs the Debian packages the test suite drives for real (OpenSSH server, Chromium, Prometheus) when they are
// missing and this user may install them. Without them the tests that need them skip with a notice.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const wanted = [
  { bin: '/usr/sbin/sshd', pkg: 'openssh-server', for: 'SSH start/restart tests' },
  // A browser named by CHROMIUM_PATH (CI's Google Chrome) stands in for Debian's package.
  { bin: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', pkg: 'chromium', for: 'browser tests' },
  { bin: '/usr/bin/ssh-keygen', pkg: 'openssh-client', for: 'SSH test keys' },
  { bin: '/usr/bin/docker-compose', pkg: 'docker-compose', for: 'the docker-compose.yml validation' },
  { bin: process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus', pkg: 'prometheus', for: 'the Prometheus scrape test' },
]

export function ensureSystemDeps({ extra = [] } = {}) {
  const missing = [...wanted, ...extra].filter((w) => !existsSync(w.bin))
  if (missing.length === 0) return
  const isRoot = process.getuid?.() === 0
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0
  if (!isRoot || !hasApt || process.env.SKIP_SYSTEM_DEPS === '1') {
    for (const m of missing) console.log(`# NOTICE: ${m.bin} (${m.pkg}) is missing; ${m.for} will be skipped`)
    return
  }
  const pkgs = [...new Set(missing.map((m) => m.pkg))]
  console.log(`# installing ${pkgs.join(', ')} (apt-get, once)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env })
  } catch {
    console.log(`# NOTICE: could not install ${pkgs.join(', ')}; the tests that need them will be skipped`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureSystemDeps()

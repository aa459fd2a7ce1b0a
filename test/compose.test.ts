import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const composeBin = '/usr/bin/docker-compose'

test('docker-compose.yml is valid and wires the stack as documented', {
  skip: existsSync(composeBin) ? false : 'docker-compose is not installed',
}, async (t) => {
  const json = execFileSync(composeBin, ['-f', path.join(root, 'docker-compose.yml'), 'config'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  })
  t.match(json, /image: postgres:16/)
  t.match(json, /condition: service_healthy/)
  t.match(json, /host\.docker\.internal:host-gateway/)
  t.match(json, /dockerfile: services\/meme-catalog\/Dockerfile/)
  t.match(json, /dockerfile: services\/node-dashboard\/Dockerfile/)
  t.match(json, /\/ssh:ro/, 'read-only SSH key mount for the dashboard')
  for (const file of ['services/meme-catalog/Dockerfile', 'services/node-dashboard/Dockerfile', '.env.example']) {
    t.ok(existsSync(path.join(root, file)), `${file} exists`)
  }
})

import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const composeBin = '/usr/bin/docker-compose'
const services = ['meme-catalog', 'node-dashboard']

test('docker-compose.yml is valid and wires the stack as documented', {
  skip: existsSync(composeBin) ? false : 'docker-compose is not installed',
}, async (t) => {
  // config -q: exit status only (fails on an invalid file); config: the resolved file.
  execFileSync(composeBin, ['-f', path.join(root, 'docker-compose.yml'), 'config', '-q'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
  })
  const json = execFileSync(composeBin, ['-f', path.join(root, 'docker-compose.yml'), 'config'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  })
  t.match(json, /image: postgres:16/)
  t.match(json, /condition: service_healthy/)
  t.match(json, /host\.docker\.internal:host-gateway/)
  t.match(json, /\/ssh:ro/, 'read-only SSH key mount for the dashboard')
  for (const service of services) {
    t.match(json, new RegExp(`SERVICE: ${service}\\n`), `${service} is built from the one Dockerfile`)
  }
  t.equal(json.match(/^ {4}init: true$/gm)?.length, 2, 'both services run under an init process')
  // The resolved YAML folds long strings and doubles single quotes.
  const unfolded = json.replace(/\n\s+/g, ' ').replaceAll("''", "'")
  for (const port of [8080, 8081]) {
    t.ok(
      unfolded.includes(`fetch('http://127.0.0.1:${port}/api/ready').then((r) => process.exit(r.ok ? 0 : 1)`),
      `the service on ${port} is health-checked by its readiness route`,
    )
  }
  t.notMatch(json, /dockerfile:/, 'the default Dockerfile at the root, no per-service one')
  t.ok(existsSync(path.join(root, '.env.example')), '.env.example exists')
})

test('one Dockerfile: current Node LTS, pinned pnpm, production deploy, compiled server', async (t) => {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8')
  for (const service of services)
    t.notOk(existsSync(path.join(root, 'services', service, 'Dockerfile')), `no ${service}/Dockerfile`)
  t.match(dockerfile, /^ARG SERVICE$/m)
  const major = Number(dockerfile.match(/^ARG NODE_MAJOR=(\d+)$/m)?.[1])
  t.ok(major >= 24 && major % 2 === 0, `Node ${major} is an even (LTS) major`)
  t.equal(dockerfile.match(/^FROM node:\$\{NODE_MAJOR\}-slim AS \w+$/gm)?.length, 2, 'both stages on that image')
  // pnpm comes from package.json "packageManager", which names an exact version.
  t.match(dockerfile, /npm install --global "\$\(node -p 'require\("\.\/package\.json"\)\.packageManager'\)"/)
  const packageManager = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).packageManager
  t.match(packageManager, /^pnpm@\d+\.\d+\.\d+$/)
  t.match(dockerfile, /deploy --prod --legacy \/out/)
  const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'))
  t.match(runtime, /COPY --from=build \/out \/app/, 'the runtime stage holds only the deployed package')
  t.match(runtime, /^CMD \["node", "dist\/server\.js"\]$/m, 'it runs the compiled server')
  t.notMatch(runtime, /tsx|pnpm/, 'no TypeScript loader or package manager at run time')
  for (const service of services) {
    const manifest = JSON.parse(readFileSync(path.join(root, 'services', service, 'package.json'), 'utf8'))
    t.ok(manifest.files.includes('dist'), `${service} ships dist/`)
    t.same(
      manifest.files.filter((f: string) => /test|bench|scripts|src/.test(f)),
      [],
      `${service} ships no tests, benches or sources`,
    )
    t.notOk(manifest.dependencies.tsx, `${service} needs no tsx in production`)
  }
})

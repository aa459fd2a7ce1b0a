import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Test, test } from 'tap'
import { serveSettings } from '../scripts/serve-settings.mjs'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  )

/** Starts dist/server.js of a service with plain node on the embedded database; resolves its port once healthy. */
async function startCompiled(t: Test, service: string): Promise<number> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `compiled-${service}-`))
  const port = await freePort()
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: path.join(root, 'services', service),
    // Only what a container sets: no loader flags inherited from the test runner.
    env: { PATH: process.env.PATH ?? '', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  t.teardown(async () => {
    child.kill('SIGTERM')
    await exited(child)
    await rm(dataDir, { recursive: true, force: true })
  })
  const deadline = Date.now() + 180_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}: ${stderr}`)
    const status = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.status,
      () => 0,
    )
    if (status === 200) return port
    if (Date.now() > deadline) throw new Error(`${service} gave no healthy answer within 180 s: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

test('the compiled servers start with plain node and answer their health check', async (t) => {
  execFileSync('npx', ['-y', 'pnpm@10', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })

  for (const service of ['meme-catalog', 'node-dashboard']) {
    const bundle = await readFile(path.join(root, 'services', service, 'dist', 'server.js'), 'utf8')
    t.notMatch(bundle, /from "vite"|import\("vite"\)/, `${service}: the server never runs Vite`)
    t.match(bundle, /from "@app\/common\/dist"/, `${service}: the shared package is imported compiled`)
  }

  const [catalog, dashboard] = await Promise.all([startCompiled(t, 'meme-catalog'), startCompiled(t, 'node-dashboard')])
  const page = await fetch(`http://127.0.0.1:${catalog}/`)
  t.equal(page.status, 200, 'the catalog finds its pages from dist/server.js')
  const app = await fetch(`http://127.0.0.1:${dashboard}/`)
  t.equal(app.status, 200, 'the dashboard serves its built web app')
  t.match(await app.text(), /<script type="module"/)
})

/** The directory of a real pnpm command (the one npx provides), for scripts that call `pnpm` themselves. */
const pnpmDir = () =>
  path.dirname(
    execFileSync('npx', ['-y', 'pnpm@10', 'exec', 'sh', '-c', 'command -v pnpm'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim(),
  )

/** A command in its own process group (as a terminal runs it), its output collected. */
function runGroup(command: string, args: string[], options: { cwd: string; env: Record<string, string> }) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  const output = { stdout: '', stderr: '' }
  child.stdout?.on('data', (chunk) => {
    output.stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output.stderr += chunk
  })
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const waitFor = async (pattern: RegExp, count = 1) => {
    const deadline = Date.now() + 180_000
    while ((output.stdout.match(new RegExp(pattern, 'g'))?.length ?? 0) < count) {
      if (child.exitCode !== null) throw new Error(`exited early: ${JSON.stringify(output)}`)
      if (Date.now() > deadline) throw new Error(`no ${pattern} within 180 s: ${JSON.stringify(output)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  return { child, output, done, waitFor }
}

/** The environment and arguments of a launcher's child processes, by service (their working folder's name). */
async function childrenOf(launcherPid: number) {
  const children: Record<string, { env: string[]; args: string[] }> = {}
  for (const pid of (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
    if (Number(stat.split(') ')[1]?.split(' ')[1]) !== launcherPid) continue
    children[path.basename(await readlink(`/proc/${pid}/cwd`))] = {
      env: (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0'),
      args: (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0'),
    }
  }
  return children
}

async function stackEnv(t: Test) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pnpm-start-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const [catalogPort, dashboardPort] = [await freePort(), await freePort()]
  return {
    ports: { catalogPort, dashboardPort },
    env: {
      MEME_CATALOG_DATA_DIR: path.join(dataDir, 'catalog'),
      NODE_DASHBOARD_DATA_DIR: path.join(dataDir, 'dashboard'),
      DEMO_MEMES: 'false',
      DASHBOARD_PASSWORD: 'start-test-password',
      LOG_LEVEL: 'info',
    },
  }
}

const packageManagerNoise = /ELIFECYCLE|Command failed|ERR_PNPM|\bERROR\b|FATAL/

test('Ctrl-C on the running stack (pnpm serve, what pnpm start runs after the build) stops both quietly', async (t) => {
  const { ports, env } = await stackEnv(t)
  const stack = runGroup('pnpm', ['serve'], {
    cwd: root,
    env: {
      PATH: `${pnpmDir()}:${process.env.PATH ?? ''}`,
      ...env,
      MEME_CATALOG_PORT: String(ports.catalogPort),
      NODE_DASHBOARD_PORT: String(ports.dashboardPort),
    },
  })
  t.teardown(() => {
    if (stack.child.exitCode === null) process.kill(-(stack.child.pid as number), 'SIGKILL')
  })
  await stack.waitFor(/Server listening/, 2)
  for (const port of [ports.catalogPort, ports.dashboardPort]) {
    t.equal((await fetch(`http://127.0.0.1:${port}/api/health`)).status, 200, `a service answers on ${port}`)
  }
  // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
  process.kill(-(stack.child.pid as number), 'SIGINT')
  t.equal(await stack.done, 0, 'pnpm exits 0')
  const { stdout, stderr } = stack.output
  t.match(stdout, /^meme-catalog\s+\| .*shutting down/m, 'the catalog’s shutdown line')
  t.match(stdout, /^node-dashboard\s+\| .*shutting down/m, 'the dashboard’s shutdown line')
  t.notMatch(stdout, packageManagerNoise, 'no error on stdout')
  t.notMatch(stderr, packageManagerNoise, 'no package-manager error on stderr')
  t.notMatch(stdout, /GET \/api\/health/, 'health probes are not logged at info')
})

test('the launcher reads .env (the environment wins) and passes a SIGTERM on to both services', async (t) => {
  const { ports, env } = await stackEnv(t)
  const folder = await mkdtemp(path.join(tmpdir(), 'dotenv-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  const unusedPort = await freePort()
  await writeFile(
    path.join(folder, '.env'),
    `# a comment\nMEME_CATALOG_PORT=${ports.catalogPort}\nNODE_DASHBOARD_PORT=${unusedPort}\nLOG_FORMAT=json\n`,
  )
  const stack = runGroup(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? '', ...env, NODE_DASHBOARD_PORT: String(ports.dashboardPort) },
  })
  t.teardown(() => {
    if (stack.child.exitCode === null) process.kill(-(stack.child.pid as number), 'SIGKILL')
  })
  await stack.waitFor(/Server listening/, 2)
  t.equal((await fetch(`http://127.0.0.1:${ports.catalogPort}/api/health`)).status, 200, 'the catalog port from .env')
  t.equal(
    (await fetch(`http://127.0.0.1:${ports.dashboardPort}/api/health`)).status,
    200,
    'the dashboard port from the environment, not the file',
  )
  t.match(stack.output.stdout, /^meme-catalog\s+\| \{"level":30/m, 'LOG_FORMAT=json from .env')
  // Each service gets the memory settings of its own serve script: malloc's variables, then node's flags.
  const children = await childrenOf(stack.child.pid as number)
  for (const service of ['meme-catalog', 'node-dashboard']) {
    const serve = serveSettings(path.join(root, 'services', service))
    t.ok(Object.keys(serve.env).length > 0, `${service}: its serve script sets variables before node`)
    for (const [name, value] of Object.entries(serve.env)) {
      t.ok(children[service]?.env.includes(`${name}=${value}`), `${service}: ${name}=${value}`)
    }
    for (const flag of serve.nodeArgs) t.ok(children[service]?.args.includes(flag), `${service}: ${flag}`)
  }
  // SIGTERM to the launcher alone (a process manager stopping it): both services close.
  stack.child.kill('SIGTERM')
  t.equal(await stack.done, 0)
  t.equal(stack.output.stdout.match(/"msg":"shutting down"/g)?.length, 2, 'both services shut down')
  t.equal(stack.output.stderr, '')
})

import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Test, test } from 'tap'

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

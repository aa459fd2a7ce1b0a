import { createServer, type Socket } from 'node:net'
import type { InjectOptions } from 'fastify'
import { test } from 'tap'
import { build, login } from '../helper.ts'

type Mode = 'hang' | 'reset' | 'garbage' | 'slow' | 'truncated'

/** A fake node RPC port that misbehaves in one way: the dashboard must bound every answer. */
async function faultyNode(mode: Mode) {
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.once('data', () => {
      if (mode === 'reset') socket.resetAndDestroy()
      if (mode === 'garbage') socket.end(Buffer.from('\u0000\u00ff garbage \r\n\r\n not http at all', 'latin1'))
      if (mode === 'truncated')
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"result":')
      if (mode === 'slow') {
        // Headers at once, then one body byte every 400 ms: each byte resets a naive idle timer.
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n')
        const timer = setInterval(() => socket.write(' '), 400)
        timers.add(timer)
      }
      // hang: accept and read, never answer.
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/`,
    close() {
      for (const t of timers) clearInterval(t)
      for (const s of sockets) s.destroy()
      server.close()
    },
  }
}

const TIMEOUT_MS = 1500

for (const mode of ['hang', 'reset', 'garbage', 'slow', 'truncated'] as const) {
  test(`node RPC ${mode}: bounded 502 {"detail"} and the server stays responsive`, async (t) => {
    const node = await faultyNode(mode)
    t.teardown(() => node.close())
    const app = await build(t, { env: { RPC_TIMEOUT_MS: String(TIMEOUT_MS) } })
    await app.settingsCache.update({ rpc_url: node.url, rpc_username: 'u', rpc_password: 'fault-rpc-Secret' })
    const cookie = await login(app)
    const timed = async (options: InjectOptions) => {
      const started = Date.now()
      const res = await app.inject(options)
      return { res, ms: Date.now() - started }
    }
    const calls = [
      timed({ method: 'POST', url: '/api/rpc/call', headers: { cookie }, payload: { method: 'getblockcount' } }),
      timed({ url: '/api/dashboard/summary', headers: { cookie } }),
      timed({ url: '/api/rpc/commands', headers: { cookie } }),
    ]
    // While those wait on the node, other requests answer at once.
    const other = await timed({ url: '/api/settings', headers: { cookie } })
    t.equal(other.res.statusCode, 200)
    t.ok(other.ms < TIMEOUT_MS, `GET /api/settings answered in ${other.ms} ms while the node misbehaves (${mode})`)
    for (const { res, ms } of await Promise.all(calls)) {
      t.equal(res.statusCode, 502, `${res.statusCode} ${res.body.slice(0, 160)}`)
      t.type(res.json().detail, 'string')
      t.notMatch(res.body, /fault-rpc-Secret/, 'no password in the answer')
      t.ok(ms < TIMEOUT_MS * 2 + 1000, `answered in ${ms} ms (timeout ${TIMEOUT_MS} ms)`)
    }
  })
}

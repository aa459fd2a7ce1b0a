import { rawCases, rawExchange } from '@app/testing/fuzz'
import { test } from 'tap'
import { build } from '../helper.ts'

test('malformed HTTP on a real socket: refused by status or close, never a 5xx, server keeps answering', async (t) => {
  const app = await build(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  for (const path of ['/api/auth/login', '/api/settings']) {
    for (const c of rawCases(path)) {
      const result = await rawExchange(port, c.bytes(`127.0.0.1:${port}`))
      t.ok(result.status === undefined || result.status < 500, `${c.name} ${path}: ${result.status ?? 'closed'}`)
      const health = await fetch(`http://127.0.0.1:${port}/api/health`)
      t.equal(health.status, 200, 'still answering')
    }
  }
})

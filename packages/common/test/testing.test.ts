import net from 'node:net'
import { test } from 'tap'
import { redisReachable, undocumentedAnswers } from '../src/testing.ts'

test('undocumentedAnswers names each operation and status the document does not list, once', async (t) => {
  const doc = { paths: { '/api/x': { get: { responses: { 200: {}, 503: {} } } } } }
  const get = ['get', '/api/x'] as const
  t.same(
    undocumentedAnswers(doc, [
      { operation: get, status: 200 },
      { operation: get, status: 503 },
      { operation: get, status: 500 },
      { operation: get, status: 500 },
      { operation: ['post', '/api/x'], status: 200 },
    ]),
    ['GET /api/x 500', 'POST /api/x 200'],
  )
})

test('redisReachable tells a listening port from a closed one', async (t) => {
  const server = net.createServer((socket) => socket.end())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const { port } = server.address() as net.AddressInfo
  t.equal(await redisReachable(`redis://127.0.0.1:${port}`), true)
  t.equal(await redisReachable('redis://127.0.0.1:1'), false)
})

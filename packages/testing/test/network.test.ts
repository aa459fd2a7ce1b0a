import net from 'node:net'
import { test } from 'tap'
import { freePort, redisReachable } from '../src/network.ts'

test('redisReachable tells a listening port from a closed one', async (t) => {
  const server = net.createServer((socket) => socket.end())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const { port } = server.address() as net.AddressInfo
  t.equal(await redisReachable(`redis://127.0.0.1:${port}`), true)
  t.equal(await redisReachable('redis://127.0.0.1:1'), false)
})

test('freePort names a port nothing listens on, which a server can then take', async (t) => {
  const port = await freePort()
  t.equal(await redisReachable(`redis://127.0.0.1:${port}`), false, 'nothing listens there')
  const server = net.createServer((socket) => socket.end())
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  t.equal((server.address() as net.AddressInfo).port, port)
})

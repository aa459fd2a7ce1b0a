import { test } from 'tap'
import { rpc, startNodeSimulator } from '../src/index.ts'

// Semantics and error texts of Bitcoin Core v30 src/rpc/net.cpp, src/banman.cpp and CSubNet.
const call = async (url: string, method: string, params: unknown = []) => (await rpc(url, method, params, { v2: true })).json

test('disconnectnode by address or by id, with Core errors for the rest', async (t) => {
  const sim = await startNodeSimulator({ peers: 4 })
  t.teardown(() => sim.close())
  const ids = async () => (await call(sim.url, 'getpeerinfo')).result.map((p: { id: number }) => p.id)
  t.same(await ids(), [0, 1, 2, 3])
  t.same(await call(sim.url, 'disconnectnode', ['127.0.0.3:18444']), { jsonrpc: '2.0', result: null, id: 1 })
  t.same(await ids(), [0, 2, 3])
  t.equal((await call(sim.url, 'disconnectnode', ['', 2])).result, null)
  t.equal((await call(sim.url, 'disconnectnode', { nodeid: 3 })).result, null)
  t.same(await ids(), [0])
  const info = (await call(sim.url, 'getnetworkinfo')).result
  t.equal(info.connections, 1, 'getnetworkinfo counts the peers left')
  t.same((await call(sim.url, 'disconnectnode', ['127.0.0.3:18444'])).error, {
    code: -29,
    message: 'Node not found in connected nodes',
  })
  t.same((await call(sim.url, 'disconnectnode', [])).error, {
    code: -32602,
    message: 'Only one of address and nodeid should be provided.',
  })
  t.same((await call(sim.url, 'disconnectnode', ['127.0.0.2:18444', 0])).error.code, -32602)
  t.same((await call(sim.url, 'disconnectnode', ['', 1.5])).error, { code: -1, message: 'JSON integer out of range' })
  t.equal((await call(sim.url, 'disconnectnode', [7])).error.code, -3, 'an address must be a string')
})

test('setban add, listbanned, remove and clearbanned', async (t) => {
  const sim = await startNodeSimulator({ peers: 6 })
  t.teardown(() => sim.close())
  const before = Math.floor(Date.now() / 1000)
  t.equal((await call(sim.url, 'setban', ['127.0.0.3', 'add', 3600])).result, null)
  t.equal((await call(sim.url, 'setban', ['10.1.2.3/255.255.0.0', 'add'])).result, null)
  t.equal((await call(sim.url, 'setban', ['[2001:4860::8888]', 'add', 60])).result, null)
  const banned = (await call(sim.url, 'listbanned')).result
  t.same(
    banned.map((b: { address: string }) => b.address),
    ['10.1.0.0/16', '127.0.0.3/32', '2001:4860::8888/128'],
    'subnets masked, single addresses /32 and /128, IPv4 first',
  )
  const [subnet, single] = banned
  t.equal(subnet.ban_duration, 86400, 'no bantime: the default 24 h')
  t.equal(single.ban_duration, 3600)
  t.ok(single.ban_created >= before && single.banned_until === single.ban_created + 3600)
  t.ok(single.time_remaining <= 3600 && single.time_remaining >= 3598)
  const addrs = (await call(sim.url, 'getpeerinfo')).result.map((p: { addr: string }) => p.addr)
  t.notOk(addrs.includes('127.0.0.3:18444'), 'a banned peer is disconnected')
  t.equal(addrs.length, 5)

  t.same((await call(sim.url, 'setban', ['127.0.0.3', 'add'])).error, { code: -23, message: 'Error: IP/Subnet already banned' })
  t.same((await call(sim.url, 'setban', ['10.1.9.9', 'add'])).error.code, -23, 'an address inside a banned subnet')
  t.same((await call(sim.url, 'setban', ['127.0.0.0/8', 'add', 100])).result, null, 'a wider subnet is another entry')
  t.equal((await call(sim.url, 'getpeerinfo')).result.length, 0, 'banning a subnet disconnects every peer in it')
  for (const bad of ['not-an-ip', '1.2.3.4:8333', '0.0.0.0', '1.2.3.4/33', '1.2.3.4/255.0.255.0', '2001:db8::1', '']) {
    t.same((await call(sim.url, 'setban', [bad, 'add'])).error, { code: -30, message: 'Error: Invalid IP/Subnet' }, bad)
  }
  t.same((await call(sim.url, 'setban', ['1.2.3.4', 'add', 1000, true])).error, {
    code: -8,
    message: 'Error: Absolute timestamp is in the past',
  })
  const until = Math.floor(Date.now() / 1000) + 500
  t.equal((await call(sim.url, 'setban', ['1.2.3.4', 'add', until, true])).result, null)
  const absolute = (await call(sim.url, 'listbanned')).result.find((b: { address: string }) => b.address === '1.2.3.4/32')
  t.equal(absolute.banned_until, until)
  t.equal((await call(sim.url, 'setban', ['1.2.3.4', 'add', 1.5])).error.code, -23)
  t.same((await call(sim.url, 'setban', ['5.6.7.8', 'add', 1.5])).error, { code: -1, message: 'JSON integer out of range' })
  t.equal((await call(sim.url, 'setban', ['5.6.7.8', 'add', '60'])).error.code, -3)
  const help = (await call(sim.url, 'setban', ['5.6.7.8', 'ban'])).error
  t.equal(help.code, -1)
  t.match(help.message, /^setban "subnet" "command"/, 'an unknown command answers the help text')

  t.equal((await call(sim.url, 'setban', ['127.0.0.3', 'remove'])).result, null)
  t.same((await call(sim.url, 'setban', ['127.0.0.3', 'remove'])).error, {
    code: -30,
    message: 'Error: Unban failed. Requested address/subnet was not previously manually banned.',
  })
  t.equal((await call(sim.url, 'setban', ['10.1.2.3', 'remove'])).error.code, -30, 'only an exact entry is lifted')
  t.equal((await call(sim.url, 'setban', ['10.1.77.1/16', 'remove'])).result, null, 'the masked subnet is the entry')
  t.equal((await call(sim.url, 'clearbanned')).result, null)
  t.same((await call(sim.url, 'listbanned')).result, [])
})

test('expired bans leave the list', async (t) => {
  const sim = await startNodeSimulator()
  t.teardown(() => sim.close())
  const until = Math.floor(Date.now() / 1000) + 1
  t.equal((await call(sim.url, 'setban', ['9.9.9.9', 'add', until, true])).result, null)
  t.equal((await call(sim.url, 'listbanned')).result.length, 1)
  await new Promise((resolve) => setTimeout(resolve, 2100))
  t.same((await call(sim.url, 'listbanned')).result, [])
  t.equal((await call(sim.url, 'setban', ['9.9.9.9', 'add'])).result, null, 'an expired ban does not block a new one')
})

test('the network methods answer help and a wrong argument count with their whole v30 help page', async (t) => {
  const sim = await startNodeSimulator({ peers: 2 })
  t.teardown(() => sim.close())
  const wrongCounts: Array<[string, unknown[]]> = [
    ['disconnectnode', ['127.0.0.2:18444', 0, 'extra']],
    ['setban', ['1.2.3.4']],
    ['listbanned', [true]],
    ['clearbanned', [1]],
  ]
  for (const [method, params] of wrongCounts) {
    const page = (await call(sim.url, 'help', [method])).result as string
    t.match(page, /\nArguments:\n|\nResult:\n/, `${method}: help is the whole page, not the synopsis`)
    t.match(page, /\nExamples:\n> bitcoin-cli /, `${method}: with its examples`)
    t.ok(page.endsWith('/\n'), `${method}: one trailing newline, as the node sends it`)
    t.same((await call(sim.url, method, params)).error, { code: -1, message: page }, `${method}: wrong count`)
  }
  t.match((await call(sim.url, 'help', ['setban'])).result, /^setban "subnet" "command" \( bantime absolute \)\n\nAttempts/)
})

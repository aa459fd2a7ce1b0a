import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { startNodeSimulator } from '@app/node-simulator'
import { freePort } from '@app/testing'
import { test } from 'tap'
import { createRpcClient } from '../../src/rpc/client.ts'
import { isRpcError, type RpcError } from '../../src/rpc/errors.ts'
import type { NodeSettings } from '../../src/settings/repository.ts'

const PASSWORD = 'rpc-Secret-9f2'

function settingsFor(url: string, extra: Partial<NodeSettings> = {}): NodeSettings {
  return {
    rpc_url: url,
    rpc_username: 'u',
    rpc_password: PASSWORD,
    rpc_wallet: '',
    rpc_cookie_path: '',
    config_path: '',
    ssh_host: '',
    ssh_port: 22,
    ssh_username: '',
    ssh_password: '',
    ssh_key_path: '',
    node_binary: 'bitcoind',
    ssh_host_key_fingerprint: '',
    ...extra,
  }
}

const client = (settings: NodeSettings, timeoutMs = 5000) => createRpcClient({ settings: async () => settings, timeoutMs })

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise
  } catch (error) {
    if (isRpcError(error)) {
      if (error.message.includes(PASSWORD)) throw new Error(`password leaked in: ${error.message}`)
      return error
    }
    throw error
  }
  throw new Error('the call did not fail')
}

/** A stand-in for nodes or proxies the simulator does not imitate (a reply replayed verbatim). */
async function stub(t: { teardown: (fn: () => unknown) => void }, status: number, body: string, type = 'application/json') {
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) })
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

test('calls a method with basic auth and returns its result', async (t) => {
  const sim = await startNodeSimulator({ password: PASSWORD })
  t.teardown(() => sim.close())
  const rpc = client(settingsFor(sim.url))
  const height = await rpc.call<number>('getblockcount')
  t.type(height, 'number')
  t.equal(sim.requests.at(-1)?.path, '/')
  t.match(JSON.parse(sim.requests.at(-1)!.body), { method: 'getblockcount', params: [] })
  const info = await rpc.call<{ chain: string }>('getblockchaininfo')
  t.equal(info.chain, 'regtest')
})

test('rpc_wallet and the wallet override select /wallet/<urlencoded name>', async (t) => {
  const sim = await startNodeSimulator({ password: PASSWORD, wallets: ['w1', 'my wallet/2'] })
  t.teardown(() => sim.close())
  const rpc = client(settingsFor(sim.url, { rpc_wallet: 'w1' }))
  await rpc.call('getbalances')
  t.equal(sim.requests.at(-1)?.path, '/wallet/w1')
  await rpc.call('getwalletinfo', [], { wallet: 'my wallet/2' })
  t.equal(sim.requests.at(-1)?.path, '/wallet/my%20wallet%2F2')
  await rpc.call('getblockcount', [], { wallet: '' })
  t.equal(sim.requests.at(-1)?.path, '/', "'' means the root endpoint")
  const missing = await failure(rpc.call('getwalletinfo', [], { wallet: 'nosuch' }))
  t.equal(missing.statusCode, 502)
  t.equal(missing.rpcCode, -18)
  t.match(missing.message, /-18.*Requested wallet does not exist or is not loaded/)
})

test('legacy error replies (HTTP 404 / 500 with an error object) become 502 with code and message', async (t) => {
  const sim = await startNodeSimulator({ password: PASSWORD })
  t.teardown(() => sim.close())
  const rpc = client(settingsFor(sim.url))
  const unknown = await failure(rpc.call('invalidmethod'))
  t.match(unknown, { statusCode: 502, kind: 'rpc', rpcCode: -32601 })
  t.equal(unknown.message, 'Node RPC error -32601 on invalidmethod: Method not found')
  const range = await failure(rpc.call('getblockhash', [999999]))
  t.match(range, { statusCode: 502, kind: 'rpc', rpcCode: -8, message: /Block height out of range/ })
})

test('JSON-RPC 2.0 error replies (HTTP 200 with an error object) become 502', async (t) => {
  const url = await stub(t, 200, '{"jsonrpc":"2.0","error":{"code":-8,"message":"Block height out of range"},"id":1}\n')
  const error = await failure(client(settingsFor(url)).call('getblockhash', [999999]))
  t.match(error, { statusCode: 502, kind: 'rpc', rpcCode: -8, message: /-8 on getblockhash: Block height out of range/ })
  const ok = await stub(t, 200, '{"jsonrpc":"2.0","result":101,"id":1}\n')
  t.equal(await client(settingsFor(ok)).call('getblockcount'), 101)
})

test('warm-up (-28) is reported as starting with the status message', async (t) => {
  const sim = await startNodeSimulator({ password: PASSWORD, warmup: 'Loading block index…' })
  t.teardown(() => sim.close())
  const error = await failure(client(settingsFor(sim.url)).call('getblockchaininfo'))
  t.match(error, { statusCode: 502, kind: 'warmup', rpcCode: -28, rpcMessage: 'Loading block index…' })
  t.equal(error.message, 'Node is starting (warm-up): Loading block index…')
  const v2 = await stub(t, 200, '{"jsonrpc":"2.0","error":{"code":-28,"message":"Loading wallet…"},"id":1}\n')
  t.match(await failure(client(settingsFor(v2)).call('getblockcount')), { kind: 'warmup', message: /starting.*Loading wallet…/ })
})

test('an empty-body 401 is an authentication failure that never shows the password', async (t) => {
  const sim = await startNodeSimulator({ password: 'the-right-one' })
  t.teardown(() => sim.close())
  const error = await failure(client(settingsFor(sim.url)).call('getblockcount'))
  t.match(error, { statusCode: 502, kind: 'auth' })
  t.match(error.message, /authentication failed \(HTTP 401\)/)
  const anonymous = await failure(client(settingsFor(sim.url, { rpc_username: '', rpc_password: '' })).call('getblockcount'))
  t.match(anonymous, { kind: 'auth' })
})

test('403 (rpcwhitelist), 503 (work queue), non-JSON and unknown paths are 502 with what happened', async (t) => {
  const forbidden = await stub(t, 403, '', 'text/html; charset=ISO-8859-1')
  t.match(await failure(client(settingsFor(forbidden)).call('stop')), { kind: 'forbidden', message: /HTTP 403/ })

  const sim = await startNodeSimulator({ password: PASSWORD, workQueueFull: true })
  t.teardown(() => sim.close())
  t.match(await failure(client(settingsFor(sim.url)).call('getblockcount')), {
    statusCode: 502,
    kind: 'busy',
    message: /HTTP 503: Work queue depth exceeded/,
  })

  const html = await stub(t, 200, '<html>proxy login</html>', 'text/html')
  t.match(await failure(client(settingsFor(html)).call('getblockcount')), {
    kind: 'bad-reply',
    message: /HTTP 200 without a JSON-RPC reply/,
  })

  const fork = await startNodeSimulator({ password: PASSWORD, fork: true })
  t.teardown(() => fork.close())
  const noWallet = await failure(client(settingsFor(fork.url, { rpc_wallet: 'w1' })).call('getwalletinfo'))
  t.match(noWallet, { kind: 'http', message: /HTTP 404.*wallet endpoint/ })
})

test('unreachable node and timeout are 502 with a clear detail', async (t) => {
  const port = await freePort()
  const down = await failure(client(settingsFor(`http://127.0.0.1:${port}/`)).call('getblockcount'))
  t.match(down, { statusCode: 502, kind: 'unreachable' })
  t.equal(down.message, `Node RPC unreachable at http://127.0.0.1:${port}/: connection refused.`)

  const sim = await startNodeSimulator({ password: PASSWORD, latencyMs: 1000 })
  t.teardown(() => sim.close())
  const slow = await failure(client(settingsFor(sim.url), 100).call('getblockcount'))
  t.match(slow, { statusCode: 502, kind: 'timeout' })
  t.match(slow.message, /timed out after 100 ms \(getblockcount/)
})

test('no rpc_url: 400 naming the setting', async (t) => {
  const error = await failure(client(settingsFor('')).call('getblockcount'))
  t.match(error, { statusCode: 400, kind: 'not-configured', message: /rpc_url/ })
})

test('batch: one HTTP request, each item succeeds or fails on its own (warm-up included)', async (t) => {
  const sim = await startNodeSimulator({ password: PASSWORD })
  t.teardown(() => sim.close())
  const rpc = client(settingsFor(sim.url))
  const outcomes = await rpc.batch([
    { method: 'getblockcount' },
    { method: 'invalidmethod' },
    { method: 'getblockhash', params: [0] },
  ])
  t.equal(sim.requests.length, 1)
  t.match(outcomes[0], { ok: true, result: Number })
  t.match(outcomes[1], { ok: false, error: { kind: 'rpc', rpcCode: -32601 } })
  t.match(outcomes[2], { ok: true, result: /^[0-9a-f]{64}$/ })
  sim.setWarmup('Loading wallet…')
  const warm = await rpc.batch([{ method: 'getblockcount' }, { method: 'help' }])
  t.ok(warm.every((o) => !o.ok && o.error.kind === 'warmup' && o.error.rpcMessage === 'Loading wallet…'))
  t.same(await rpc.batch([]), [])
})

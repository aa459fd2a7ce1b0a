import { execFileSync } from 'node:child_process'
import { test } from 'tap'
import { curlCommand, methodNamePattern, nodeEndpoint, parseParams, shellQuote } from '../../web/src/rpc-tools.ts'

test('parseParams accepts only a JSON array', async (t) => {
  t.same(parseParams(''), { ok: true, params: [] })
  t.same(parseParams('  [1, "two", {"three": 3}] '), { ok: true, params: [1, 'two', { three: 3 }] })
  const bad = parseParams('[1, 2')
  t.equal(bad.ok, false)
  t.match(bad.ok ? '' : bad.error, /not valid JSON/)
  const object = parseParams('{"a": 1}')
  t.equal(object.ok, false)
  t.match(object.ok ? '' : object.error, /must be a JSON array/)
  t.equal(parseParams('42').ok, false)
  t.equal(parseParams('"text"').ok, false)
})

test('method names are limited to what a node method can be called', async (t) => {
  t.ok(methodNamePattern.test('getblockcount'))
  t.ok(methodNamePattern.test('getblock_v2'))
  t.notOk(methodNamePattern.test('getblock count'))
  t.notOk(methodNamePattern.test('../stop'))
  t.notOk(methodNamePattern.test(''))
})

test('shellQuote survives a real POSIX shell', async (t) => {
  for (const value of ["it's", '$(touch /tmp/pwned)', '`id`', 'a"b\\c', '\n;rm -rf /', '']) {
    const echoed = execFileSync('/bin/sh', ['-c', `printf %s ${shellQuote(value)}`], { encoding: 'utf8' })
    t.equal(echoed, value)
  }
})

test('curl commands never carry credentials', async (t) => {
  const cmd = curlCommand('http://alice:s3cret@10.0.0.5:8332/', 'getblockhash', [0], null)
  t.notMatch(cmd, /alice|s3cret/)
  t.match(cmd, /curl --user "\$RPC_USER"/)
  t.match(cmd, /'http:\/\/10\.0\.0\.5:8332\/'/)
  t.match(cmd, /"method":"getblockhash","params":\[0\]/)
  const wallet = curlCommand('http://127.0.0.1:18443', 'getbalances', [], 'my wallet')
  t.match(wallet, /'http:\/\/127\.0\.0\.1:18443\/wallet\/my%20wallet'/)
  t.equal(nodeEndpoint('not a url', null), 'http://127.0.0.1:8332/')
})

test('the curl payload is the exact JSON-RPC request, even with quotes in params', async (t) => {
  const cmd = curlCommand('http://127.0.0.1:8332/', 'echo', ["it's", { a: '$HOME' }], null)
  // Run the command through sh with curl replaced by printf to see what curl would receive.
  const script = `curl() { while [ $# -gt 0 ]; do if [ "$1" = --data-binary ]; then printf %s "$2"; fi; shift; done; }\n${cmd}`
  const payload = execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8', env: { RPC_USER: 'u' } })
  t.same(JSON.parse(payload), { jsonrpc: '1.0', id: 'dashboard', method: 'echo', params: ["it's", { a: '$HOME' }] })
})

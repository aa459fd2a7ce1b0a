import { execFileSync } from 'node:child_process'
import { test } from 'tap'
import { bitcoinCliCommand, buildParams, type RpcArgument } from '../../web/src/rpc-args.ts'

const arg = (position: number, name: string, type: string, required = false): RpcArgument => ({
  position,
  name,
  type,
  required,
  default: null,
  description: '',
})
const sendArgs = [
  arg(1, 'address', 'string', true),
  arg(2, 'amount', 'numeric or string', true),
  arg(3, 'comment', 'string'),
  arg(4, 'subtractfeefromamount', 'boolean'),
  arg(5, 'conf_target', 'numeric'),
  arg(6, 'options', 'json object'),
]

test('buildParams converts each field by its type and fills skipped optional ones with null', async (t) => {
  t.same(buildParams(sendArgs, ['bc1qxyz', '0.1', '', '', '', '']), { ok: true, params: ['bc1qxyz', 0.1] })
  t.same(buildParams(sendArgs, ['bc1qxyz', '0.1', '', 'true', '', '']), { ok: true, params: ['bc1qxyz', 0.1, null, true] })
  t.same(buildParams(sendArgs, ['a', '1e-3', 'for "rent"', 'false', '6', '{"replaceable": true}']), {
    ok: true,
    params: ['a', 0.001, 'for "rent"', false, 6, { replaceable: true }],
  })
  t.same(buildParams(sendArgs, ['a', 'max', '', '', '', '']), { ok: true, params: ['a', 'max'] }, 'numeric or string stays text')
  t.same(buildParams([arg(1, 'blockhash', 'string', true)], ['  00ab  ']), { ok: true, params: ['00ab'] })
  t.same(buildParams([], []), { ok: true, params: [] })
})

test('buildParams names the argument that is missing or malformed', async (t) => {
  t.same(buildParams(sendArgs, ['', '', '', '', '', '']), { ok: false, error: 'address is required.' })
  t.same(buildParams(sendArgs, ['a', '', 'c', '', '', '']), { ok: false, error: 'amount is required.' })
  t.same(buildParams(sendArgs, ['a', '1', '', '', 'six', '']), { ok: false, error: 'conf_target must be a number.' })
  t.same(buildParams(sendArgs, ['a', '1', '', 'yes', '', '']), {
    ok: false,
    error: 'subtractfeefromamount must be true or false.',
  })
  t.same(buildParams(sendArgs, ['a', '1', '', '', '', '{oops']), { ok: false, error: 'options must be JSON (json object).' })
})

test('bitcoinCliCommand: -named with known argument names, positional otherwise, never a password', async (t) => {
  t.equal(
    bitcoinCliCommand('http://u:secret@10.0.0.5:18443/', 'sendtoaddress', ['bc1q', 0.1, null, true], 'w 1', sendArgs),
    "bitcoin-cli -rpcconnect='10.0.0.5' -rpcport=18443 -rpcuser=\"$RPC_USER\" -stdinrpcpass -rpcwallet='w 1' -named " +
      "sendtoaddress 'address=bc1q' 'amount=0.1' 'subtractfeefromamount=true'",
  )
  t.equal(
    bitcoinCliCommand('http://127.0.0.1:8332', 'getblock', ['00ff', 2], null),
    "bitcoin-cli -rpcconnect='127.0.0.1' -rpcport=8332 -rpcuser=\"$RPC_USER\" -stdinrpcpass getblock '00ff' '2'",
  )
  t.equal(
    bitcoinCliCommand('http://[::1]:8332', 'getblockcount', [], null),
    'bitcoin-cli -rpcconnect=\'::1\' -rpcport=8332 -rpcuser="$RPC_USER" -stdinrpcpass getblockcount',
  )
  t.notMatch(bitcoinCliCommand('http://u:secret@h:1/', 'help', [], null), /secret/)
})

test('every bitcoin-cli argument reaches the program as one word, whatever it holds', async (t) => {
  const hostile = ["it's", '$(touch /tmp/pwned)', '`id`', 'a b\nc']
  const command = bitcoinCliCommand('http://127.0.0.1:8332', 'help', hostile, null)
  // Run through a real shell with printf standing in for bitcoin-cli: one line per argument it received.
  const printed = execFileSync('/bin/sh', ['-c', command.replace(/^bitcoin-cli/, "printf '%s\\0'")], { encoding: 'utf8' })
  t.same(printed.split('\0').slice(-hostile.length - 1, -1), hostile)
})

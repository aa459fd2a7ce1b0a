import { test } from 'tap'
import {
  DEBUG_LOG_MAX_BYTES,
  debugLogLocation,
  debugLogPath,
  parseDebugLogTail,
  tailDebugLogCommand,
} from '../../src/lifecycle/debug-log.ts'

test('debug.log location: datadir and the chain directory, like bitcoind', async (t) => {
  const cases: [string, string][] = [
    ['datadir=/srv/btc\n', '/srv/btc/debug.log'],
    ['datadir=/srv/btc\ntestnet=1\n', '/srv/btc/testnet3/debug.log'],
    ['datadir=/srv/btc\nchain=testnet4\n', '/srv/btc/testnet4/debug.log'],
    ['datadir=/srv/btc\nsignet=1\n', '/srv/btc/signet/debug.log'],
    ['regtest=1\n', '~/.bitcoin/regtest/debug.log'],
    ['datadir=/srv/btc\ndebuglogfile=/var/log/bitcoind.log\n', '/var/log/bitcoind.log'],
    ['datadir=/srv/btc\nregtest=1\n[regtest]\ndebuglogfile=node.log\n', '/srv/btc/regtest/node.log'],
  ]
  for (const [conf, path] of cases) {
    const location = debugLogLocation(conf)
    t.ok(location, conf)
    if (location) t.equal(debugLogPath(location), path, JSON.stringify(conf))
  }
  t.equal(debugLogLocation('[nosuchchain]\n'), null, 'a config that does not parse gives no path')
})

test('the tail command quotes the path and bounds the read', async (t) => {
  const command = tailDebugLogCommand({ dir: "/srv/it's here", file: 'regtest/debug.log' })
  t.match(command, `f='/srv/it'\\''s here'/'regtest/debug.log'`)
  t.match(command, `tail -c ${DEBUG_LOG_MAX_BYTES} -- "$f" | tail -n 201`)
  t.match(tailDebugLogCommand({ dir: null, file: 'debug.log' }), `f="$HOME"/.bitcoin/'debug.log'`)
})

test('parsing the tail: the partial first line of a long file is dropped, controls escaped, reindex hints found', async (t) => {
  const short = parseDebugLogTail('/x/debug.log', '20\na\nPlease restart with -reindex or -reindex-chainstate to recover.\n')
  t.same(short, {
    path: '/x/debug.log',
    lines: ['a', 'Please restart with -reindex or -reindex-chainstate to recover.'],
    truncated: false,
    reindex_suggested: true,
  })
  const long = parseDebugLogTail('/x', `${DEBUG_LOG_MAX_BYTES + 10}\npartial\nok \u0007\u009b line\n`)
  t.same(long?.lines, ['ok \\x07\\x9b line'])
  t.equal(long?.truncated, true)
  t.equal(long?.reindex_suggested, false)
  const many = parseDebugLogTail('/x', `999\n${Array.from({ length: 201 }, (_, i) => `l${i}`).join('\n')}\n`)
  t.equal(many?.lines.length, 200)
  t.equal(many?.lines[0], 'l1')
  t.equal(many?.truncated, true)
  t.equal(parseDebugLogTail('/x', 'garbage'), null)
})

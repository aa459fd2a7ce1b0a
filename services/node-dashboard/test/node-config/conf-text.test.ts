import { scalesLinearly } from '@app/testing'
import t from 'tap'
import {
  ConfError,
  commonOptions,
  maskSecrets,
  parseConf,
  restoreSecrets,
  validateConf,
} from '../../src/node-config/conf-text.ts'

const CONF = [
  '# node config',
  'server=1',
  'prune=0 # full node',
  'rpcpassword=hunter2',
  'rpcauth=alice:f7efda5c189b999524f151318c0c86$d5b51b3beffbc02b724e5d095828e0bc8b2456e9ac8757ae3211a5d9b16a22ae',
  'rpcauth=bob:0123456789abcdef$00ff',
  'dbcache=450',
  '[regtest]',
  'rpcport=18443',
  'rpcpassword=regtest-secret',
  '',
].join('\n')

t.test('parses lines, sections and comments like bitcoind', async (t) => {
  const lines = parseConf(CONF)
  t.same(
    lines.map((l) => [l.number, l.section, l.key, l.value]),
    [
      [2, '', 'server', '1'],
      [3, '', 'prune', '0'],
      [4, '', 'rpcpassword', 'hunter2'],
      [5, '', 'rpcauth', lines[3].value],
      [6, '', 'rpcauth', 'bob:0123456789abcdef$00ff'],
      [7, '', 'dbcache', '450'],
      [9, 'regtest', 'rpcport', '18443'],
      [10, 'regtest', 'rpcpassword', 'regtest-secret'],
    ],
  )
  t.same(commonOptions(lines), { server: '1', prune: '0', dbcache: '450' })
  t.throws(() => parseConf('[mainnet]\n'), /line 1: unknown section \[mainnet\]/)
  t.throws(() => parseConf('server=1\njunk\n'), /line 2: expected key=value/)
  t.throws(() => parseConf('rpcpassword=abc#def\n'), /line 1: rpcpassword cannot contain "#"/)
})

t.test('secrets are masked for display and kept on save unless changed', async (t) => {
  const { text, secretCount } = maskSecrets(CONF)
  t.equal(secretCount, 4)
  for (const secret of ['hunter2', 'regtest-secret', 'f7efda5c', 'd5b51b3b', '0123456789abcdef']) {
    t.notOk(text.includes(secret), `${secret} is masked`)
  }
  t.match(text, 'rpcpassword=********\n')
  t.match(text, 'rpcauth=alice:********\nrpcauth=bob:********\n')
  t.match(text, 'prune=0 # full node', 'everything else is kept byte for byte')

  t.equal(restoreSecrets(text, CONF), CONF, 'an unedited masked text restores exactly')
  const edited = text.replace('dbcache=450', 'dbcache=1000').replace('rpcauth=bob:********\n', '')
  t.equal(restoreSecrets(edited, CONF), CONF.replace('dbcache=450', 'dbcache=1000').replace(/rpcauth=bob:[^\n]*\n/, ''))
  const reordered = text.replace(/rpcauth=alice:\*+\nrpcauth=bob:\*+\n/, 'rpcauth=bob:********\nrpcauth=alice:********\n')
  t.match(restoreSecrets(reordered, CONF), /rpcauth=bob:0123456789abcdef\$00ff\nrpcauth=alice:f7ef/, 'rpcauth follows its user')
  const changed = text.replace('rpcpassword=********\n', 'rpcpassword=new-one\n')
  t.match(restoreSecrets(changed, CONF), 'rpcpassword=new-one\n')
  t.throws(() => restoreSecrets(`${text}rpcauth=carol:********\n`, CONF), ConfError, 'a mask with nothing behind it')
})

t.test('values bitcoind refuses are a ConfError naming the line', async (t) => {
  const bad: [string, RegExp][] = [
    ['prune=100', /line 1: prune below the minimum of 550 MiB/],
    ['prune=-1', /line 1: prune cannot be negative/],
    ['dbcache=lots', /line 1: dbcache must be a whole number/],
    ['dbcache=2', /dbcache must be at least 4/],
    ['maxmempool=1', /maxmempool must be at least 5/],
    ['txindex=true', /line 1: txindex must be 0 or 1/],
    ['blocksonly=yes', /blocksonly must be 0 or 1/],
    ['chain=mainnet', /chain must be one of/],
    ['datadir=relative/dir', /datadir must be an absolute path/],
    ['rpcallowip=10.0.0.0/33', /rpcallowip must be an IP address or subnet/],
    ['rpcallowip=example.org', /rpcallowip must be an IP address or subnet/],
    ['rpcbind=bad host', /rpcbind must be an address/],
    ['rpcport=70000', /rpcport must be a port/],
    ['regtest=1\ntestnet=1', /line 2: at most one of regtest/],
    ['prune=550\ntxindex=1', /line 2: txindex=1 is incompatible with prune/],
  ]
  for (const [text, message] of bad) t.throws(() => validateConf(parseConf(text)), message, text)
  const good = [
    'prune=1',
    'prune=550',
    'rpcallowip=10.0.0.0/8',
    'rpcallowip=192.168.1.0/255.255.255.0',
    'rpcallowip=::1',
    'rpcbind=127.0.0.1:8332',
    'rpcbind=[::1]:8332',
    'rpcbind=node.lan',
    'chain=signet',
    'regtest=1\n[regtest]\nrpcport=18443',
    'txindex=1\n[test]\nprune=550',
  ]
  for (const text of good) t.doesNotThrow(() => validateConf(parseConf(text)), text)
})

t.test('parsing, checking and masking scale linearly on hostile text', async (t) => {
  const hostile: [string, (n: number) => string][] = [
    ['one long rpcauth line of colons', (n) => `rpcauth=${':'.repeat(n)}`],
    ['many rpcauth lines', (n) => 'rpcauth=a:b\n'.repeat(n / 8)],
    ['a long comment', (n) => `rpcpassword=x${'#'.repeat(n)}`],
    ['nested brackets', (n) => '['.repeat(n)],
    ['an rpcbind of brackets', (n) => `rpcbind=[${'['.repeat(n)}]`],
    ['an rpcallowip of slashes', (n) => `rpcallowip=1${'/'.repeat(n)}`],
  ]
  for (const [label, make] of hostile) {
    scalesLinearly(t, label, make, (text) => validateConf(parseConf(text)))
    scalesLinearly(t, `${label} (mask)`, make, (text) => maskSecrets(text))
    scalesLinearly(t, `${label} (restore)`, make, (text) => restoreSecrets(text, text))
  }
})

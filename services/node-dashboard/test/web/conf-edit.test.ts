import { test } from 'tap'
import { setTopOption } from '../../web/src/conf-edit.ts'

test('setTopOption edits the top section only and keeps the rest of the text', async (t) => {
  const conf = 'server=1\ndbcache=450 # MiB\n\n[regtest]\ndbcache=100\n'
  t.equal(setTopOption(conf, 'dbcache', '1000'), 'server=1\ndbcache=1000 # MiB\n\n[regtest]\ndbcache=100\n')
  t.equal(setTopOption(conf, 'prune', '550'), 'server=1\ndbcache=450 # MiB\nprune=550\n\n[regtest]\ndbcache=100\n')
  t.equal(setTopOption(conf, 'dbcache', ''), 'server=1\n\n[regtest]\ndbcache=100\n', 'empty removes it')
  t.equal(setTopOption('', 'txindex', '1'), 'txindex=1\n')
  t.equal(setTopOption('# only a comment\n', 'txindex', '1'), '# only a comment\ntxindex=1\n')
  t.equal(setTopOption('a=1\na=2\n', 'a', '3'), 'a=1\na=3\n', 'the last value is the one bitcoind uses')
  t.equal(setTopOption('#dbcache=4\n', 'dbcache', '8'), '#dbcache=4\ndbcache=8\n', 'a commented line is not the option')
})

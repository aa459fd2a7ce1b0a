import { execFileSync } from 'node:child_process'
import { test } from 'tap'
import { shellQuote, startCommand } from '../../src/ssh/command.ts'

const hostile = [
  "x'; touch /tmp/pwned; '",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, on purpose
  '$(id) `id` ${HOME} "double" \\back\\slash',
  'line one\nline two; rm -rf /nonexistent',
  "''''",
  '',
  '-n',
  'ünïcødé * ? [a-z] ~ & | < > #',
]

test('shellQuote: a POSIX shell gives back exactly the original value', async (t) => {
  for (const value of hostile) {
    const out = execFileSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(value)}`], { encoding: 'utf8' })
    t.equal(out, value, JSON.stringify(value))
  }
  t.equal(shellQuote("it's"), `'it'\\''s'`)
  t.throws(() => shellQuote('a\0b'), /NUL/)
})

test('startCommand quotes the binary and the config path', async (t) => {
  t.equal(
    startCommand({ nodeBinary: '/opt/bitcoin/bin/bitcoind', configPath: '/home/btc/.bitcoin/bitcoin.conf' }),
    `'/opt/bitcoin/bin/bitcoind' -conf='/home/btc/.bitcoin/bitcoin.conf' -daemon`,
  )
  // coreutils echo prints its arguments as received (no backslash escapes, no -conf option).
  const out = execFileSync('/bin/sh', ['-c', startCommand({ nodeBinary: '/bin/echo', configPath: hostile[0] })], {
    encoding: 'utf8',
  })
  t.equal(out, `-conf=${hostile[0]} -daemon\n`)
})

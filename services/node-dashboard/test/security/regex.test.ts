import { fast, fill } from '@app/testing'
import { test } from 'tap'
import { parseScryptHash } from '../../src/auth/password.ts'
import { HELP_REPLY_BYTES, parseHelpArguments, parseHelpListing } from '../../src/explorer/help-parser.ts'
import { endpointUrl } from '../../src/rpc/client.ts'

// Every function here runs a regular expression (or its replacement) on text from outside: each gets
// an adversarial input of the largest size it can see in production. Linear work on these sizes takes
// a few milliseconds; a backtracking blow-up takes seconds to hours. The bound is generous for a busy machine.
// The settings API accepts rpc_url up to this length.
const RPC_URL_LENGTH = 2048
// An environment variable of one argument string (Linux MAX_ARG_STRLEN).
const ENV_VALUE_BYTES = 128 * 1024

test('the node help listing is parsed in linear time at the help reply cap', async (t) => {
  const size = HELP_REPLY_BYTES
  const cases: [string, string][] = [
    ['a header opening, blanks, no closing', fill('==', ' ', 'x', size)],
    ['a header opening, a name, blanks, one =', fill('== x', ' ', '=x', size)],
    ['a header of blanks and = signs', fill('== x', ' =', 'x', size)],
    ['a method name, then a line separator inside the synopsis', fill('', 'a', ' b\u2028c', size)],
    ['a method name, then a carriage return inside the synopsis', fill('', 'a', ' b\rc', size)],
    ['a synopsis of blanks and words', fill('m', ' \t x', '\rx', size)],
    ['short lines', fill('', '== A ==\nx "a" ( b )\n  \r\n', '', size)],
  ]
  for (const [label, text] of cases) {
    const categories = fast(t, label, () => parseHelpListing(text))
    t.ok(Array.isArray(categories), label)
  }
})

test("a method page's arguments are parsed in linear time at the help reply cap", async (t) => {
  const size = HELP_REPLY_BYTES
  const head = 'm\n\nArguments:\n'
  const cases: [string, string][] = [
    ['one argument line of blanks', fill(`${head}1. x`, ' ', '(', size)],
    ['an unclosed parenthesis of parentheses', fill(`${head}1. x `, '(', '', size)],
    ['a type of commas', fill(`${head}1. x (`, ', default=', ')', size)],
    ['many arguments', fill(head, '1. a (string, required) d\n', '', size)],
    ['many continuation lines', fill(`${head}1. a (string, required) d\n`, '   more words here\n', '', size)],
    ['many shape lines', fill(`${head}1. a (json object, required) d\n`, '  "k": 1,\n', '', size)],
    ['dots without a position', fill(head, '. . . ', '', size)],
  ]
  for (const [label, text] of cases) {
    const args = fast(t, label, () => parseHelpArguments(text))
    t.ok(Array.isArray(args) && args.length <= 100, label)
  }
})

test('the wallet endpoint is built in linear time from an rpc_url of many slashes', async (t) => {
  const url = fast(t, 'slashes then a letter', () => endpointUrl(fill('http://h/', '/', 'a', RPC_URL_LENGTH), 'w1'))
  t.ok((url as string).endsWith('a/wallet/w1'))
  const root = fast(t, 'slashes only', () => endpointUrl(fill('http://h/', '/', '', RPC_URL_LENGTH), 'w1'))
  t.equal(root, 'http://h/wallet/w1')
  fast(t, 'a wallet name of surrogates', () => endpointUrl('http://h/', fill('', '\ud800', '', 256)))
})

test('stored secrets and fingerprints are checked in linear time', async (t) => {
  t.equal(
    fast(t, 'a scrypt hash of base64 and = signs', () =>
      parseScryptHash(fill('$scrypt$ln=15,r=8,p=1$', 'A=', '$x$', ENV_VALUE_BYTES)),
    ),
    null,
  )
  t.equal(
    fast(t, 'a scrypt hash with a long salt', () => parseScryptHash(fill('$scrypt$ln=15,r=8,p=1$', 'A', '$=', ENV_VALUE_BYTES))),
    null,
  )
})

import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { BITCOIND_DATA_DIR } from '@app/node-simulator'
import { test } from 'tap'
import { parseHelpArguments } from '../../src/explorer/help-parser.ts'

const fixture = (name: string) => readFile(new URL(`fixtures/${name}`, import.meta.url), 'utf8')

test("a captured page's arguments: name, type, required, default and description", async (t) => {
  const page = await readFile(path.join(BITCOIND_DATA_DIR, 'captured', 'help-getblock.txt'), 'utf8')
  const args = parseHelpArguments(page)
  t.same(
    args.map(({ position, name, type, required, default: fallback }) => [position, name, type, required, fallback]),
    [
      [1, 'blockhash', 'string', true, null],
      [2, 'verbosity', 'numeric', false, '1'],
    ],
  )
  t.equal(args[0].description, 'The block hash')
  t.match(args[1].description, /^0 for hex-encoded data, 1 for a JSON object/)
})

test('JSON arguments: their drawn shape stays out of the description; defaults keep their commas', async (t) => {
  const args = parseHelpArguments(await fixture('help-send.txt'))
  t.same(
    args.map((a) => [a.position, a.name, a.type, a.required, a.default]),
    [
      [1, 'outputs', 'json array', true, null],
      [2, 'conf_target', 'numeric', false, 'wallet -txconfirmtarget'],
      [3, 'estimate_mode', 'string', false, '"unset"'],
      [4, 'fee_rate', 'numeric or string', false, 'not set, falls back to wallet fee estimation'],
      [5, 'options', 'json object', false, null],
    ],
  )
  t.match(args[0].description, /key-value pairs\. Each key may only appear once.*also accepted\.$/)
  t.notMatch(args[0].description, /OP_RETURN|"address"/, 'member lines are not the argument description')
  t.equal(args[2].description, 'The fee estimate mode, must be one of (case insensitive): "unset" "economical" "conservative"')
  t.notMatch(args[4].description, /add_inputs/)
})

test('a page without arguments, or without an Arguments section, gives none', async (t) => {
  t.same(parseHelpArguments(await readFile(path.join(BITCOIND_DATA_DIR, 'captured', 'help-getbalances.txt'), 'utf8')), [])
  t.same(parseHelpArguments('uptime\n\nReturns the total uptime.\n\nResult:\nn    (numeric)\n'), [])
  t.same(parseHelpArguments(''), [])
})

test('odd lines do not throw: a missing type, an unclosed parenthesis, a huge position', async (t) => {
  const args = parseHelpArguments('x\n\nArguments:\n1. bare\n2. open   (string, required\n123456. nope\n  trailing words\n')
  t.same(
    args.map((a) => [a.name, a.type, a.required]),
    [
      ['bare', '', false],
      ['open', '', false],
    ],
  )
  t.equal(args[1].description, '(string, required trailing words')
})

import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { BITCOIND_DATA_DIR } from '@app/node-simulator'
import { test } from 'tap'
import { parseHelpListing } from '../../src/explorer/help-parser.ts'
import { CLASSIFIED_METHODS, hasSecretParams, RISK_CLASSES, riskOf } from '../../src/explorer/risk.ts'

test("every method of each captured node's help listing has a class of its own in the table", async (t) => {
  for (const listing of ['captured/help.txt', 'help-28.0.0.txt']) {
    const text = await readFile(path.join(BITCOIND_DATA_DIR, listing), 'utf8')
    const methods = parseHelpListing(text).flatMap((category) => category.methods.map((m) => m.name))
    t.ok(methods.length > 100, `${listing}: ${methods.length} methods`)
    t.same(
      methods.filter((method) => !CLASSIFIED_METHODS.has(method)),
      [],
      listing,
    )
  }
})

test('the classes of the methods an operator must not call by accident', async (t) => {
  const expected: Record<string, string[]> = {
    read_only: ['getblockchaininfo', 'getblock', 'getpeerinfo', 'help', 'decoderawtransaction', 'estimatesmartfee', 'listbanned'],
    wallet_read: ['getbalances', 'getwalletinfo', 'listunspent', 'listtransactions'],
    changes_state: ['setban', 'addnode', 'disconnectnode', 'pruneblockchain', 'getnewaddress', 'loadwallet', 'createwallet'],
    funds_or_keys: [
      'sendtoaddress',
      'send',
      'sendrawtransaction',
      'walletpassphrase',
      'dumpprivkey',
      'importdescriptors',
      'listdescriptors',
    ],
    stops_or_damages: ['stop', 'invalidateblock', 'dumptxoutset', 'loadtxoutset'],
  }
  for (const [risk, methods] of Object.entries(expected)) {
    t.ok(RISK_CLASSES.includes(risk as never), risk)
    for (const method of methods) t.equal(riskOf(method), risk, method)
  }
  t.equal(riskOf('STOP'), 'stops_or_damages', 'names are matched without case, as the node does not')
})

test("a method the table does not know, like a newer node's, counts as changing state", async (t) => {
  t.equal(riskOf('getfancynewthing'), 'changes_state')
  t.equal(riskOf('sendeverythingnow'), 'changes_state')
})

test('methods whose params carry passphrases or keys are marked', async (t) => {
  for (const method of [
    'walletpassphrase',
    'walletpassphrasechange',
    'encryptwallet',
    'importprivkey',
    'importdescriptors',
    'createwallet',
    'signrawtransactionwithkey',
  ]) {
    t.ok(hasSecretParams(method), method)
  }
  for (const method of ['getblock', 'sendtoaddress', 'stop', 'dumpprivkey']) t.notOk(hasSecretParams(method), method)
})

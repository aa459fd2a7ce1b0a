import { test } from 'tap'
import {
  clearHistory,
  HISTORY_KEY,
  HISTORY_LENGTH,
  type HistoryEntry,
  loadHistory,
  recordCall,
} from '../../web/src/rpc-history.ts'

function memoryStorage() {
  const items = new Map<string, string>()
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  }
}
const entry = (method: string, params: unknown[]): HistoryEntry => ({
  at: '2026-11-24T12:00:00.000Z',
  method,
  params,
  wallet: null,
  ok: true,
  ms: 3,
})

test('calls survive a reload; a secret-taking method is kept without its params', async (t) => {
  const storage = memoryStorage()
  let history = recordCall(storage, loadHistory(storage), entry('getblockhash', [0]), false)
  history = recordCall(storage, history, entry('walletpassphrase', ['correct horse battery staple', 60]), true)
  t.notMatch(storage.items.get(HISTORY_KEY) ?? '', /horse/, 'the passphrase never reaches storage')
  t.same(
    loadHistory(storage).map((e) => [e.method, e.params]),
    [
      ['walletpassphrase', null],
      ['getblockhash', [0]],
    ],
  )
  t.same(history, loadHistory(storage))
  clearHistory(storage)
  t.same(loadHistory(storage), [], 'logout clears it')
})

test('the history is bounded in entries and bytes, and bad stored data is ignored', async (t) => {
  const storage = memoryStorage()
  let history: HistoryEntry[] = []
  for (let i = 0; i < HISTORY_LENGTH + 10; i++) history = recordCall(storage, history, entry(`m${i}`, []), false)
  t.equal(loadHistory(storage).length, HISTORY_LENGTH)
  t.equal(loadHistory(storage)[0].method, `m${HISTORY_LENGTH + 9}`, 'newest first')
  history = recordCall(storage, history, entry('big', ['x'.repeat(300 * 1024)]), false)
  t.ok((storage.items.get(HISTORY_KEY) ?? '').length <= 256 * 1024, 'stored text stays under its cap')
  t.same(loadHistory(storage)[0], { ...entry('big', []), params: null }, 'an oversized call is kept without params')
  for (const bad of ['not json', '{"a":1}', '[{"method": 1}]', 'x'.repeat(300 * 1024)]) {
    storage.items.set(HISTORY_KEY, bad)
    t.same(loadHistory(storage), [], bad.slice(0, 20))
  }
  const throwing = {
    getItem: () => null,
    removeItem() {},
    setItem: () => {
      throw new Error('quota')
    },
  }
  t.equal(recordCall(throwing, [], entry('m', []), false).length, 1, 'a full storage keeps the page history')
})

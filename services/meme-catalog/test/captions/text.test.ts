import { test } from 'tap'
import { clampCaption, cleanOcrText, keepCatalogTags, tagsInText } from '../../src/captions/providers/text.ts'
import { retryDelayMs } from '../../src/captions/worker.ts'

test('cleanOcrText joins lines and drops speckle lines', async (t) => {
  t.equal(cleanOcrText('ONE DOES NOT  SIMPLY\n\n  DEPLOY ON FRIDAY \n'), 'ONE DOES NOT SIMPLY DEPLOY ON FRIDAY')
  t.equal(cleanOcrText('~ . ,\nHELLO\n|| ~~ -- ;;\n'), 'HELLO')
  t.equal(cleanOcrText(''), '')
})

test('clampCaption counts code points like PostgreSQL', async (t) => {
  t.equal(clampCaption('😀'.repeat(2001)).length, 4000, '2000 emoji are 4000 UTF-16 units')
  t.equal(Array.from(clampCaption('😀'.repeat(2001))).length, 2000)
  t.equal(clampCaption('  short  '), 'short')
  t.equal(clampCaption('nul\u0000byte\u0007\nline'), 'nul byte \nline', 'control characters become spaces')
})

test('tagsInText matches whole words, case- and accent-insensitively', async (t) => {
  const catalog = ['cat', 'café', 'monday', 'deploy on friday', 'ai']
  t.same(tagsInText('My CAT drinks CAFE on Mondays', catalog), ['cat', 'café'], '"Mondays" is not the word "monday"')
  t.same(tagsInText('never deploy   on Friday', catalog), ['deploy on friday'], 'multi-word tags')
  t.same(tagsInText('concatenate; brain', catalog), [], 'no matches inside words')
})

test('keepCatalogTags keeps known names, lowercased and unique', async (t) => {
  t.same(keepCatalogTags(['Cats', 'cats', ' dogs ', 'birds', 7, null], ['cats', 'dogs']), ['cats', 'dogs'])
})

test('retry delays double per attempt and are capped', async (t) => {
  t.same(
    [1, 2, 3, 4].map((n) => retryDelayMs(100, n)),
    [100, 200, 400, 800],
  )
  t.equal(retryDelayMs(5000, 40), 3_600_000)
})

import { test } from 'tap'
import {
  clampCaption,
  cleanOcrText,
  keepCatalogTags,
  MAX_OCR_TEXT_LENGTH,
  tagsInText,
} from '../../src/captions/providers/text.ts'
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

test('clampCaption reads only the head of a huge text and never splits a surrogate pair', async (t) => {
  t.equal(clampCaption(`${' \u0000\n'.repeat(100_000)}  hello  ${'x'.repeat(1_000_000)}`, 8), 'hello  x')
  t.equal(clampCaption('\u0000\u0007 \t'), '', 'nothing but blanks and controls')
  t.equal(clampCaption(`${'😀'.repeat(3)}abc`, 4), '😀😀😀a')
  t.equal(clampCaption(`a${'😀'.repeat(5)}`, 3), 'a😀😀')
})

test('cleanOcrText stops once the caption is full and ignores text past MAX_OCR_TEXT_LENGTH', async (t) => {
  const lines = Array.from({ length: 10_000 }, (_, i) => `LINE ${i} OF TEXT`).join('\n')
  const caption = cleanOcrText(lines)
  t.equal(caption.length, 2000)
  t.ok(caption.startsWith('LINE 0 OF TEXT LINE 1 OF TEXT'))
  t.equal(cleanOcrText(`${'~ .\n'.repeat(MAX_OCR_TEXT_LENGTH / 4)}LATE TEXT`), '', 'text after the limit is noise')
  t.equal(cleanOcrText(`${'~ .\n'.repeat(MAX_OCR_TEXT_LENGTH / 4 - 10)}EARLY TEXT`), 'EARLY TEXT')
})

test('tagsInText: tags with punctuation, any whitespace between words, letters beyond the BMP', async (t) => {
  const catalog = ['c++', 'deploy on friday', 'ai', '😀', 'a.b']
  t.same(tagsInText('I love C++ and\tdeploy\u00a0 on\nFRIDAY', catalog), ['c++', 'deploy on friday'])
  t.same(tagsInText('😀!', catalog), ['😀'])
  t.same(tagsInText('ai𝐀 𝐀ai a.b.c', catalog), ['a.b'], 'a mathematical letter (two UTF-16 units) is a letter')
  t.same(tagsInText('deploy on fridays', catalog), [])
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

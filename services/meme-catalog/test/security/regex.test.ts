import { fast, fill, LINEAR_TIME_LIMIT_MS } from '@app/testing'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { test } from 'tap'
import { createAdminAuth } from '../../src/admin/auth.ts'
import { normalizeCatalogName } from '../../src/admin/tags-routes.ts'
import { chatCompletionsUrl, MAX_RESPONSE_BYTES, unfence } from '../../src/captions/providers/openai.ts'
import { clampCaption, cleanOcrText, tagsInText } from '../../src/captions/providers/text.ts'
import { downloadName } from '../../src/media/routes.ts'
import { MAX_CAPTION_LENGTH, MAX_QUERY_LENGTH, MAX_TAG_LENGTH } from '../../src/memes/schemas.ts'
import { parseQuery, tokenize } from '../../src/search/normalize.ts'
import { checkUploadHeaders, sanitizeFileName } from '../../src/uploads/multipart.ts'

// Every function here runs a regular expression (or its replacement) on text from outside: each gets
// an adversarial input of the largest size it can see in production. Linear work on these sizes takes
// a few milliseconds; a backtracking blow-up takes seconds to hours. The bound is generous for a busy machine.
// Node's default limit for the whole request head.
const HEADER_BYTES = 16 * 1024
// @fastify/busboy's default limit for the headers of one multipart part (the file name lives there).
const PART_HEADER_BYTES = 80 * 1024
// An environment variable of one argument string (Linux MAX_ARG_STRLEN).
const ENV_VALUE_BYTES = 128 * 1024
// OCR output is read up to MAX_OCR_TEXT_LENGTH; far longer text must cost no more.
const OCR_TEXT_BYTES = 1024 * 1024

test('captioner answer: the Markdown fence is stripped in linear time at the 1 MB answer cap', async (t) => {
  const size = MAX_RESPONSE_BYTES
  fast(t, 'fence, spaces, no closing fence', () => unfence(fill('```', ' ', 'x', size)))
  fast(t, 'fence json, newlines, no closing fence', () => unfence(fill('```json', '\n', 'x', size)))
  fast(t, 'fence, spaces, backticks without a fence', () => unfence(fill('```', ' `', 'x``', size)))
  fast(t, 'both fences around whitespace', () => unfence(fill('```', ' \t\n', '```', size)))
  const inside = fast(t, 'a fenced answer', () => unfence(fill('```json\n{"caption":"', 'a', '"}\n```', size)))
  t.equal((inside as string).length, size - '```json\n'.length - '\n```'.length)
})

test('captioner answer: captions are clamped in linear time at the answer cap', async (t) => {
  const caption = fast(t, 'control characters and spaces', () =>
    clampCaption(fill(' ', '\u0000 \u0007\t', ' ', MAX_RESPONSE_BYTES)),
  )
  t.equal(caption, '')
  fast(t, 'letters', () => clampCaption('x'.repeat(MAX_RESPONSE_BYTES)))
})

test('captioner URL: trailing slashes go in linear time at the size of an environment variable', async (t) => {
  const url = fast(t, 'slashes then a letter', () => chatCompletionsUrl(fill('http://h/', '/', 'a', ENV_VALUE_BYTES)))
  t.ok((url as string).endsWith('a/chat/completions'))
  t.equal(
    fast(t, 'slashes only', () => chatCompletionsUrl(fill('http://h/v1', '/', '', ENV_VALUE_BYTES))),
    'http://h/v1/chat/completions',
  )
})

test('OCR text: lines are cleaned in linear time, tags are found in linear time in the caption', async (t) => {
  fast(t, 'runs of whitespace, no line breaks', () => cleanOcrText(fill('a', ' \u00a0\t', 'b', OCR_TEXT_BYTES)))
  fast(t, 'short lines', () => cleanOcrText(fill('', 'ab c\r\n', '', OCR_TEXT_BYTES)))
  fast(t, 'specks', () => cleanOcrText(fill('', '~ .', '', OCR_TEXT_BYTES)))
  // The longest tags, made of one-letter words, against a caption of the same words with one miss at the end.
  const catalog = Array.from({ length: 1000 }, (_, i) => fill('', 'a ', `${i}`, MAX_TAG_LENGTH))
  const caption = fill('', 'a  ', 'b', MAX_CAPTION_LENGTH)
  t.same(
    fast(t, '1000 tags of 60 characters', () => tagsInText(caption, catalog)),
    [],
  )
})

test('header and upload checks run in linear time (16 KB heads, 80 KB part heads)', async (t) => {
  const auth = createAdminAuth('the-admin-token')
  t.equal(
    fast(t, 'Bearer, blanks, two words', () => auth.verify(fill('Bearer', ' \t', 'a b', HEADER_BYTES))),
    false,
  )
  t.equal(
    fast(t, 'Bearer, many words', () => auth.verify(fill('Bearer ', 'a ', 'x', HEADER_BYTES))),
    false,
  )
  const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest
  const reply = {} as FastifyReply
  const check = (headers: Record<string, string>) => checkUploadHeaders(request(headers), reply).catch((e: Error) => e)
  const started = performance.now()
  const outcomes = await Promise.all([
    check({ 'content-length': fill('', '1', 'x', HEADER_BYTES) }),
    check({ 'content-length': '10', 'content-type': fill('multipart/form-data', ' ', 'x', HEADER_BYTES) }),
  ])
  const ms = performance.now() - started
  t.ok(ms < LINEAR_TIME_LIMIT_MS, `Content-Length and Content-Type: ${ms.toFixed(1)} ms`)
  for (const outcome of outcomes) t.match(outcome, { statusCode: 400 })
  const name = fast(t, 'file name of blanks and controls', () =>
    sanitizeFileName(fill('a', ' \u0001\u202e\t', 'b', PART_HEADER_BYTES), 'upload'),
  )
  t.ok((name as string).length <= 255)
  fast(t, 'file name of slashes', () => sanitizeFileName(fill('', '/\\', 'x', PART_HEADER_BYTES), 'upload'))
  t.equal(
    fast(t, 'download name of dashes', () => downloadName(fill('a', '-', 'é', 255))),
    'a.webp',
  )
  fast(t, 'download name of dots', () => downloadName(fill('', '.a', 'é', 255)))
  // Stored names are capped at 255 characters today; the download name stays linear without that cap.
  t.equal(
    fast(t, 'download name of 200,000 dashes', () => downloadName(fill('a', '-', 'b', 200_000))),
    `a${'-'.repeat(79)}.webp`,
  )
})

test('search text and tag names are split and folded in linear time', async (t) => {
  fast(t, 'query of separators', () => parseQuery(fill('a', ' -_.', 'b', MAX_QUERY_LENGTH)))
  fast(t, 'caption of marks', () => tokenize(fill('é', 'e\u0301\u0302 ', 'x', MAX_CAPTION_LENGTH)))
  fast(t, 'caption of ASCII separators', () => tokenize(fill('a', ' .', 'b', MAX_CAPTION_LENGTH)))
  // The route accepts 200 characters in the path; anything longer than 60 is refused after normalizing.
  t.match(
    fast(t, 'tag name of blanks', () => normalizeCatalogName(fill('a', ' \t\u00a0b', 'c', 200))),
    { statusCode: 400 },
  )
})
